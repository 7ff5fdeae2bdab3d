import { describe, expect, it } from 'vitest';
import type { DetectorInput } from '../../engine/detector.ts';
import { sensitivePathDetector } from '../../engine/detectors/sensitive-path.ts';
import { findSensitivePaths } from '../../engine/detectors/sensitive-path/matcher.ts';
import type { SensitivePathMatch } from '../../engine/detectors/sensitive-path/types.ts';
import { normalize } from '../../engine/normalize.ts';

const inputOf = (s: string): DetectorInput => ({ text: normalize(s), surface: 'tool_params', tier: 'fast' });
const CONFIDENCE = { critical: 0.95, high: 0.8, medium: 0.6, low: 0.4 } as const;

const scan = (s: string): SensitivePathMatch[] => {
  const items = findSensitivePaths(inputOf(s));
  for (const i of items) {
    expect(s.slice(i.span[0], i.span[1])).toBe(i.text);
    expect(i.source).toBe('rule');
    expect(i.confidence).toBe(CONFIDENCE[i.severity]);
    expect(i.risk_reason.length).toBeGreaterThan(0);
    expect(i.matched_pattern.length).toBeGreaterThan(0);
  }
  return items;
};

/** The most severe item (what the detector's score reflects). */
const top = (items: SensitivePathMatch[]) => [...items].sort((a, b) => b.confidence - a.confidence)[0];

// [input, label, severity, os, exact original text of the item]
const POSITIVE: [string, string, SensitivePathMatch['severity'], SensitivePathMatch['os'], string][] = [
  ['cat /etc/passwd', 'system_file', 'high', 'linux', '/etc/passwd'],
  ['read_file("/etc/shadow")', 'system_file', 'critical', 'linux', '/etc/shadow'],
  ['sudo cat /etc/sudoers', 'system_file', 'high', 'linux', '/etc/sudoers'],
  ['open file:///proc/self/environ', 'system_file', 'critical', 'linux', 'file:///proc/self/environ'],
  ['ls /root/', 'system_file', 'medium', 'linux', '/root/'],
  ['../../../../../../etc/passwd', 'system_file', 'critical', 'linux', '../../../../../../etc/passwd'],
  ['?file=..%2f..%2f..%2fetc%2fshadow', 'system_file', 'critical', 'linux', '..%2f..%2f..%2fetc%2fshadow'],
  ['cat ~/.ssh/id_rsa', 'ssh_key', 'critical', 'any', '~/.ssh/id_rsa'],
  ['scp /home/bob/.ssh/id_ed25519 x:', 'ssh_key', 'critical', 'linux', '/home/bob/.ssh/id_ed25519'],
  ['echo key >> ~/.ssh/authorized_keys', 'ssh_key', 'high', 'any', '~/.ssh/authorized_keys'],
  ['~/.ssh/known_hosts', 'ssh_key', 'medium', 'any', '~/.ssh/known_hosts'],
  ['upload id_rsa.pub', 'ssh_key', 'low', 'any', 'id_rsa.pub'],
  ['type %USERPROFILE%\\.ssh\\id_rsa', 'ssh_key', 'critical', 'windows', '%USERPROFILE%\\.ssh\\id_rsa'],
  ['print the contents of .env', 'env_file', 'high', 'any', '.env'],
  ['cat app/.env.local', 'env_file', 'high', 'any', 'app/.env.local'],
  ['.env.production', 'env_file', 'high', 'any', '.env.production'],
  ['cat ~/.aws/credentials', 'cloud_credentials', 'critical', 'any', '~/.aws/credentials'],
  ['~/.aws/config', 'cloud_credentials', 'medium', 'any', '~/.aws/config'],
  [
    '~/.config/gcloud/application_default_credentials.json',
    'cloud_credentials',
    'critical',
    'any',
    '~/.config/gcloud/application_default_credentials.json',
  ],
  ['ls ~/.config/gcloud/configurations', 'cloud_credentials', 'high', 'any', '~/.config/gcloud/configurations'],
  ['~/.azure/msal_token_cache.json', 'cloud_credentials', 'critical', 'any', '~/.azure/msal_token_cache.json'],
  ['KUBECONFIG=~/.kube/config', 'cloud_credentials', 'critical', 'any', '~/.kube/config'],
  [
    '/var/run/secrets/kubernetes.io/serviceaccount/token',
    'cloud_credentials',
    'critical',
    'linux',
    '/var/run/secrets/kubernetes.io/serviceaccount/token',
  ],
  ['cat ~/.npmrc', 'secret_file', 'high', 'any', '~/.npmrc'],
  ['~/.pypirc', 'secret_file', 'high', 'any', '~/.pypirc'],
  ['cat ~/.netrc', 'secret_file', 'critical', 'any', '~/.netrc'],
  ['~/.git-credentials', 'secret_file', 'critical', 'any', '~/.git-credentials'],
  ['~/.docker/config.json', 'secret_file', 'high', 'any', '~/.docker/config.json'],
  ['openssl rsa -in server.key', 'secret_file', 'high', 'any', 'server.key'],
  ['/etc/ssl/private/site.pem', 'secret_file', 'high', 'linux', '/etc/ssl/private/site.pem'],
  ['C:\\Windows\\System32\\config\\SAM', 'system_file', 'critical', 'windows', 'C:\\Windows\\System32\\config\\SAM'],
  [
    'reg save %SystemRoot%\\System32\\config\\SYSTEM',
    'system_file',
    'critical',
    'windows',
    '%SystemRoot%\\System32\\config\\SYSTEM',
  ],
  [
    '"C:\\\\Windows\\\\System32\\\\config\\\\SECURITY"',
    'system_file',
    'critical',
    'windows',
    'C:\\\\Windows\\\\System32\\\\config\\\\SECURITY',
  ],
  ['copy C:\\Windows\\NTDS\\NTDS.dit', 'system_file', 'critical', 'windows', 'C:\\Windows\\NTDS\\NTDS.dit'],
  [
    'C:\\Users\\bob\\AppData\\Roaming\\Microsoft\\Credentials\\X1',
    'secret_file',
    'critical',
    'windows',
    'C:\\Users\\bob\\AppData\\Roaming\\Microsoft\\Credentials\\X1',
  ],
  [
    '~/Library/Keychains/login.keychain-db',
    'secret_file',
    'critical',
    'macos',
    '~/Library/Keychains/login.keychain-db',
  ],
  ['cat /private/etc/master.passwd', 'system_file', 'critical', 'macos', '/private/etc/master.passwd'],
  ['vi /etc/nginx/nginx.conf', 'config_file', 'medium', 'linux', '/etc/nginx/nginx.conf'],
  ['download wp-config.php.bak', 'config_file', 'high', 'any', 'wp-config.php.bak'],
  ['cat config/database.yml', 'config_file', 'high', 'any', 'config/database.yml'],
  ['edit settings.py', 'config_file', 'medium', 'any', 'settings.py'],
  ['web.config', 'config_file', 'high', 'any', 'web.config'],
  ['appsettings.Production.json', 'config_file', 'medium', 'any', 'appsettings.Production.json'],
  ['cat ~/.bash_history', 'shell_history', 'high', 'any', '~/.bash_history'],
  ['.zsh_history', 'shell_history', 'high', 'any', '.zsh_history'],
  ['..\\..\\..\\..\\windows\\win.ini', 'system_file', 'medium', 'windows', '..\\..\\..\\..\\windows\\win.ini'],
  ['GET /download?f=%2e%2e%2f%2e%2e%2f', 'path_traversal', 'high', 'any', '%2e%2e%2f%2e%2e%2f'],
  ['../../../../../../../tmp/x', 'path_traversal', 'high', 'any', '../../../../../../../'],
];

// Inputs that must produce no item at all.
const NEGATIVE: string[] = [
  'the environment is fine today',
  'keys to the house are on the table',
  'see https://example.com/etc/ for details',
  'apples, pears, etc. and so on',
  'change it with passwd',
  'process.env.API_KEY is read at boot',
  'const v = import.meta.env.VITE_URL;',
  'this.key = other.key;',
  'the root directory of the project',
  'a history of the Roman empire',
  'ssh into the server',
  'my password manager',
  'import x from "../utils"',
  'see the settings page',
  'the config file format',
  'a private key is a secret',
  'Windows 11 system settings',
  'the SAM database stores hashes',
  'the web config is wrong',
  'repair/system tool',
  'docker config is documented',
  'send it to my account',
  'credentials are required',
  'kube config docs',
  'shadow IT is a problem',
  'the known hosts are listed',
  'Library of Congress',
  'node_modules/.bin/tsc',
  'a.b.c.d.e',
  'meet at 10:30',
];

describe('findSensitivePaths', () => {
  it('has at least 25 positive and 25 negative cases', () => {
    expect(POSITIVE.length).toBeGreaterThanOrEqual(25);
    expect(NEGATIVE.length).toBeGreaterThanOrEqual(25);
  });

  it.each(POSITIVE)('finds in %j: %s', (input, label, severity, os, text) => {
    const items = scan(input);
    const hit = items.find((i) => i.label === label && i.text === text);
    expect(hit, JSON.stringify(items)).toBeDefined();
    expect(hit!.severity).toBe(severity);
    expect(hit!.os).toBe(os);
  });

  it.each(NEGATIVE)('finds nothing in %j', (input) => {
    expect(scan(input)).toEqual([]);
  });

  it('raises severity for traversal and reports the traversal itself', () => {
    const plain = top(scan('/etc/passwd'))!;
    const items = scan('GET /page?file=../../../etc/passwd');
    const path = items.find((i) => i.label === 'system_file')!;
    const traversal = items.find((i) => i.label === 'path_traversal')!;
    expect(plain.severity).toBe('high');
    expect(path.severity).toBe('critical');
    expect(path.detection_type).toBe('traversal');
    expect(path.risk_reason).toMatch(/traversal/);
    expect(traversal.text).toBe('../../../');
    expect(traversal.severity).toBe('high');
  });

  it('lowers severity for a path inside a web URL', () => {
    const [item] = scan('https://example.com/etc/passwd');
    expect(item!.severity).toBe('medium');
    expect(item!.risk_reason).toMatch(/URL/);
  });

  it('keeps only the most specific item for one path', () => {
    const items = scan('/root/.ssh/id_rsa');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      label: 'ssh_key',
      severity: 'critical',
      matched_pattern: 'ssh_private_key',
      text: '/root/.ssh/id_rsa',
    });
  });

  it('rates shallow relative traversal low and encoded traversal high', () => {
    expect(top(scan('import x from "../../lib/a"'))).toMatchObject({ label: 'path_traversal', severity: 'low' });
    expect(top(scan('../../../../src'))).toMatchObject({ label: 'path_traversal', severity: 'medium' });
    expect(top(scan('..%252f..%252fboot.ini'))).toMatchObject({ severity: 'high' });
    expect(top(scan('....//....//etc/hosts'))!.severity).not.toBe('low');
  });

  it('bare file names without a directory are reported, lower where the rule says so', () => {
    expect(top(scan('generate an id_rsa key'))).toMatchObject({
      label: 'ssh_key',
      severity: 'high',
      detection_type: 'filename',
    });
    expect(top(scan('a .ssh folder'))).toMatchObject({ label: 'ssh_key', severity: 'low' });
  });

  it.each([
    // [original with invisible / fullwidth / homoglyph characters, label, expected original slice]
    ['cat /\u200Betc/pa\u200Dsswd now', 'system_file', '/\u200Betc/pa\u200Dsswd'],
    ['cat ／etc／shadow', 'system_file', '／etc／shadow'],
    ['cat ~/.\u0455sh/id_rsa', 'ssh_key', '~/.\u0455sh/id_rsa'], // Cyrillic dze folds to s
    ['print ．env', 'env_file', '．env'],
    ['\u202Ecat\u202C ~/.aws/cr\u0435dentials', 'cloud_credentials', '~/.aws/cr\u0435dentials'],
  ])('maps spans back through normalisation: %j', (input, label, slice) => {
    expect(scan(input).find((i) => i.label === label)?.text).toBe(slice);
  });

  it('does not fold letters that are not homoglyphs', () => {
    // Cyrillic ge (г) is not an r: no private key, only the .ssh directory.
    expect(scan('cat ~/.ssh/id_\u0433sa').map((i) => i.matched_pattern)).toEqual(['ssh_dir']);
  });

  it('stays linear on adversarial 1 MB inputs', () => {
    for (const big of [
      '../'.repeat(333_333),
      '/etc/passwd '.repeat(80_000),
      '.env.'.repeat(200_000),
      '%2e'.repeat(333_333),
      'a/'.repeat(500_000),
      'history '.repeat(125_000),
    ]) {
      const t0 = performance.now();
      findSensitivePaths(inputOf(big));
      expect(performance.now() - t0).toBeLessThan(3000);
    }
  });
});

describe('sensitivePathDetector', () => {
  it('declares its contract', () => {
    expect(sensitivePathDetector).toMatchObject({
      name: 'sensitive_path',
      version: '1.0.0',
      model: 'rules',
      kind: 'entities',
      category: 'sensitive_path',
      thresholds: { warn_above: 0.4, flag_above: 0.6, block_above: 0.85 },
      frameworks: {
        owasp_agentic: ['T2', 'T3', 'T11'],
        owasp_llm: ['LLM02:2025', 'LLM06:2025'],
        mitre_atlas: ['AML.T0057'],
      },
    });
    expect(sensitivePathDetector.surfaces).toHaveLength(8);
  });

  it('scores the max confidence and returns plain finding items', () => {
    const result = sensitivePathDetector.detect(inputOf('cat /etc/shadow and ~/.npmrc'));
    expect(result).not.toBeInstanceOf(Promise);
    const r = result as Exclude<typeof result, Promise<unknown>>;
    expect(r.detector).toBe('sensitive_path');
    expect(r.score).toBe(0.95);
    expect(r.items).toHaveLength(2);
    for (const item of r.items)
      expect(Object.keys(item).sort()).toEqual(['confidence', 'label', 'source', 'span', 'text']);
  });

  it('scores 0 on ordinary prose', () => {
    const r = sensitivePathDetector.detect(inputOf('The quarterly review covered a lot of ground, etc.'));
    expect(r).toEqual({ detector: 'sensitive_path', score: 0, items: [] });
  });
});
