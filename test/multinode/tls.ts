/**
 * A CA of the bed's own and one leaf for an IP address, made with `openssl` at set-up and thrown away
 * with the bed: the nodes trust the CA for webhooks (WEBHOOK_CA_FILE), the test's receiver serves the leaf.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface BedTls {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Writes ca.pem, leaf.pem and leaf.key into `dir`, the leaf valid for `address`. */
export function makeTls(dir: string, address: string): BedTls {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=content-firewall multinode bed CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  writeFileSync(file('leaf.ext'), `subjectAltName=IP:${address}\nbasicConstraints=CA:FALSE\n`);
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${address}`,
    '-keyout',
    file('leaf.key'),
    '-out',
    file('leaf.csr'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    file('leaf.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('leaf.ext'),
    '-out',
    file('leaf.pem'),
  );
  return { caFile: file('ca.pem'), certFile: file('leaf.pem'), keyFile: file('leaf.key') };
}
