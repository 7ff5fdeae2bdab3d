/**
 * Sensitive path references: system account files, private keys, env and credential files, shell
 * history, server config, and traversal sequences (plain, JSON-escaped and URL-encoded). Rules are
 * literal-anchored regexes, each run only when its trigger substring occurs, so ordinary prose costs
 * a few substring searches. A match grows over the surrounding path characters so the item shows
 * the whole path; traversal in that path raises severity, a plain web URL lowers it.
 */
import type { Detector, DetectorInput, FindingItem } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';

export type PathSeverity = 'critical' | 'high' | 'medium' | 'low';
export type PathOs = 'linux' | 'windows' | 'macos' | 'any';
export type PathCategory =
  | 'system_file'
  | 'ssh_key'
  | 'env_file'
  | 'cloud_credentials'
  | 'secret_file'
  | 'config_file'
  | 'shell_history'
  | 'path_traversal';
export type DetectionType = 'exact_path' | 'filename' | 'traversal' | 'extension';

/** A finding item plus the rule's explanation (FindingItem has no room for these). */
export type SensitivePathMatch = FindingItem & {
  os: PathOs;
  severity: PathSeverity;
  risk_reason: string;
  matched_pattern: string;
  detection_type: DetectionType;
};

const CONFIDENCE: Record<PathSeverity, number> = { critical: 0.95, high: 0.8, medium: 0.6, low: 0.4 };
const LEVELS: readonly PathSeverity[] = ['low', 'medium', 'high', 'critical'];
const shift = (s: PathSeverity, by: number): PathSeverity => LEVELS[Math.min(3, Math.max(0, LEVELS.indexOf(s) + by))]!;

interface PathRule {
  id: string;
  re: RegExp;
  /** Lower-case substrings; the rule's regex runs only when the text contains one. */
  triggers: readonly string[];
  category: Exclude<PathCategory, 'path_traversal'>;
  severity: PathSeverity;
  /** Severity when the match stands alone with no directory around it; null drops it. */
  bare?: PathSeverity | null;
  os: PathOs;
  type: DetectionType;
  reason: string;
  /** Directory rules: take in the rest of the path after the match. */
  extendRight?: boolean;
  /** Extra check on the whole path token. */
  accept?: (token: string) => boolean;
}

// A separator: slash, backslash (doubled when JSON-escaped), or its URL encoding.
const S = String.raw`(?:[\\/]{1,2}|%2f|%5c)`;
// Start of a file name: not inside a longer name (an encoded separator counts as a boundary).
const B = String.raw`(?:(?<![\w.$-])|(?<=%2f|%5c))`;
// End of a name: no more name characters (a sentence's full stop is fine).
const E = String.raw`(?![\w-]|\.\w)`;
// Backup copies of a secret are as sensitive as the original.
const BAK = String.raw`(?:\.(?:bak|old|orig|save|swp|backup|tmp|\d))?`;
// `etc` at a path root: after a separator, or where a path may start.
const ETC = String.raw`(?:${S}|(?<![\w.-]))etc${S}`;

/** Key-file stems worth reporting without a directory (`this.key` in code is a property, not a file). */
const KEY_STEMS =
  /(?:^|[\\/_.-])(?:private|privkey|priv|server|client|ssl|tls|cert|certificate|domain|localhost|signing|secret|rsa|ecdsa|ed25519|host|ca|root|master|jwt|pgp|gpg|ssh)[\w.-]*\.key/i;

function r(
  id: string,
  pattern: string,
  triggers: string | readonly string[],
  category: PathRule['category'],
  severity: PathSeverity,
  os: PathOs,
  type: DetectionType,
  reason: string,
  extra: Partial<Pick<PathRule, 'bare' | 'extendRight' | 'accept'>> = {},
): PathRule {
  return {
    id,
    re: new RegExp(pattern, 'gi'),
    triggers: typeof triggers === 'string' ? [triggers] : triggers,
    category,
    severity,
    os,
    type,
    reason,
    ...extra,
  };
}

const RULES: readonly PathRule[] = [
  // Unix system files.
  r(
    'etc_shadow',
    `${ETC}(?:g?shadow|master\\.passwd|security${S}opasswd)${BAK}${E}`,
    'etc',
    'system_file',
    'critical',
    'linux',
    'exact_path',
    'password hashes of local accounts',
  ),
  r(
    'etc_passwd',
    `${ETC}passwd${BAK}${E}`,
    'passwd',
    'system_file',
    'high',
    'linux',
    'exact_path',
    'local account list; the classic file-read probe',
  ),
  r(
    'etc_sudoers',
    `${ETC}sudoers(?:\\.d)?${E}`,
    'sudoers',
    'system_file',
    'high',
    'linux',
    'exact_path',
    'privilege escalation rules',
  ),
  r(
    'etc_group',
    `${ETC}(?:group|hosts)${E}`,
    'etc',
    'system_file',
    'low',
    'linux',
    'exact_path',
    'system reconnaissance',
  ),
  r(
    'etc_ssh_host_key',
    `${ETC}ssh${S}ssh_host_\\w{1,20}_key${E}`,
    'ssh_host',
    'ssh_key',
    'critical',
    'linux',
    'exact_path',
    'SSH server private host key',
  ),
  r(
    'proc_environ',
    `(?<![\\w.-])${S}?proc${S}(?:self|thread-self|\\d{1,7})${S}(?:environ|mem)${E}`,
    'proc',
    'system_file',
    'critical',
    'linux',
    'exact_path',
    'process environment or memory: leaks secrets in env variables',
  ),
  r(
    'proc_other',
    `(?<![\\w.-])${S}?proc${S}(?:self|thread-self|\\d{1,7})${S}(?:cmdline|maps|fd|cwd|root|status)${E}`,
    'proc',
    'system_file',
    'medium',
    'linux',
    'exact_path',
    'process introspection',
  ),
  r(
    'proc_kcore',
    `(?<![\\w.-])${S}proc${S}kcore${E}`,
    'kcore',
    'system_file',
    'high',
    'linux',
    'exact_path',
    'kernel memory image',
  ),
  r(
    'root_home',
    `(?<![\\w.~$-])/root(?=/|\\\\|$|[\\s'"\`,;)\\]])`,
    '/root',
    'system_file',
    'medium',
    'linux',
    'exact_path',
    "the superuser's home directory",
    { extendRight: true },
  ),
  r(
    'k8s_sa_token',
    `serviceaccount${S}(?:token|ca\\.crt|namespace)${E}`,
    'serviceaccount',
    'cloud_credentials',
    'critical',
    'linux',
    'exact_path',
    'Kubernetes service-account token',
  ),
  // macOS.
  r(
    'macos_private_etc',
    `private${S}etc${S}(?:master\\.passwd|sudoers|passwd|shadow)${E}`,
    'private',
    'system_file',
    'high',
    'macos',
    'exact_path',
    'macOS account database',
  ),
  r(
    'macos_master_passwd',
    `master\\.passwd${E}`,
    'master.passwd',
    'system_file',
    'critical',
    'macos',
    'filename',
    'BSD/macOS shadow password file',
    { bare: 'high' },
  ),
  r(
    'macos_dslocal',
    `var${S}db${S}dslocal${S}nodes`,
    'dslocal',
    'system_file',
    'critical',
    'macos',
    'exact_path',
    'macOS local directory service: password hashes',
    { extendRight: true },
  ),
  r(
    'macos_keychain',
    `(?:Library${S}Keychains|${B}[\\w-]{1,40}\\.keychain(?:-db)?${E})`,
    ['keychain'],
    'secret_file',
    'critical',
    'macos',
    'exact_path',
    'macOS keychain: stored passwords and keys',
    { extendRight: true },
  ),
  // Windows.
  r(
    'win_sam',
    `(?<![\\w-])(?:system32${S}config|windows${S}repair)${S}(?:sam|system|security)(?:\\.(?:sav|bak|old))?${E}`,
    ['system32', 'repair'],
    'system_file',
    'critical',
    'windows',
    'exact_path',
    'Windows registry hives with password hashes',
  ),
  r(
    'win_ntds',
    `${B}ntds\\.dit${E}`,
    'ntds',
    'system_file',
    'critical',
    'windows',
    'filename',
    'Active Directory database: every domain hash',
  ),
  r(
    'win_ini',
    `(?:windows${S}win\\.ini|${B}boot\\.ini)${E}`,
    ['win.ini', 'boot.ini'],
    'system_file',
    'low',
    'windows',
    'exact_path',
    'the classic Windows file-read probe',
  ),
  r(
    'win_unattend',
    `${B}(?:auto)?(?:unattend|sysprep)\\.(?:xml|inf)${E}`,
    ['unattend', 'sysprep'],
    'secret_file',
    'high',
    'windows',
    'filename',
    'unattended-install answers: local admin password',
  ),
  r(
    'win_cred_store',
    `AppData${S}(?:Roaming|Local)${S}Microsoft${S}(?:Credentials|Protect|Vault)`,
    'appdata',
    'secret_file',
    'critical',
    'windows',
    'exact_path',
    'Windows Credential Manager / DPAPI store',
    { extendRight: true },
  ),
  r(
    'browser_store',
    `(?:User Data${S}[\\w ]{1,30}${S}(?:Login Data|Cookies|Web Data)|${B}(?:logins\\.json|key[34]\\.db)${E})`,
    ['user data', 'logins.json', 'key3.db', 'key4.db'],
    'secret_file',
    'critical',
    'any',
    'exact_path',
    'browser saved passwords or cookies',
    { bare: 'high' },
  ),
  // SSH keys.
  r(
    'ssh_private_key',
    `${B}id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?${BAK}${E}`,
    'id_',
    'ssh_key',
    'critical',
    'any',
    'filename',
    'SSH private key',
    { bare: 'high' },
  ),
  r('ssh_ppk', `(?<=[\\w-])\\.ppk${E}`, '.ppk', 'ssh_key', 'critical', 'any', 'extension', 'PuTTY private key'),
  r(
    'ssh_authorized_keys',
    `${B}authorized_keys2?${E}`,
    'authorized_keys',
    'ssh_key',
    'high',
    'any',
    'filename',
    'SSH access list: writing it grants persistent access',
  ),
  r(
    'ssh_known_hosts',
    `${B}known_hosts${E}`,
    'known_hosts',
    'ssh_key',
    'medium',
    'any',
    'filename',
    'SSH host list: reveals internal hosts',
  ),
  r(
    'ssh_dir',
    `(?<![\\w-])\\.ssh(?:${S}config)?(?![\\w-])`,
    '.ssh',
    'ssh_key',
    'medium',
    'any',
    'exact_path',
    'SSH configuration directory',
    { extendRight: true, bare: 'low' },
  ),
  r(
    'ssh_public_key',
    `${B}id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\\.pub${E}`,
    '.pub',
    'ssh_key',
    'low',
    'any',
    'filename',
    'SSH public key',
  ),
  // Environment files.
  r(
    'env_file',
    `(?<![\\w.$-])\\.env(?:\\.(?:local|dev|development|prod|production|staging|stage|test|testing|ci))?(?:\\.local)?${BAK}${E}`,
    '.env',
    'env_file',
    'high',
    'any',
    'filename',
    'environment file: API keys and database passwords',
  ),
  r(
    'env_example',
    `(?<![\\w.$-])\\.env\\.(?:example|sample|template|dist|defaults)${E}`,
    '.env',
    'env_file',
    'low',
    'any',
    'filename',
    'environment template (usually no real secrets)',
  ),
  r(
    'envrc',
    `(?<![\\w.$-])\\.envrc${E}`,
    '.envrc',
    'env_file',
    'medium',
    'any',
    'filename',
    'direnv file: exported variables',
  ),
  // Cloud credentials.
  r(
    'aws_credentials',
    `\\.aws${S}credentials${E}`,
    '.aws',
    'cloud_credentials',
    'critical',
    'any',
    'exact_path',
    'AWS access keys',
  ),
  r(
    'aws_config',
    `\\.aws${S}config${E}`,
    '.aws',
    'cloud_credentials',
    'medium',
    'any',
    'exact_path',
    'AWS CLI profiles, roles and SSO settings',
  ),
  r(
    'aws_dir',
    `(?<![\\w-])\\.aws(?=${S})`,
    '.aws',
    'cloud_credentials',
    'medium',
    'any',
    'exact_path',
    'AWS CLI configuration',
    { extendRight: true },
  ),
  r(
    'gcloud_dir',
    `\\.config${S}gcloud`,
    'gcloud',
    'cloud_credentials',
    'high',
    'any',
    'exact_path',
    'Google Cloud SDK configuration and tokens',
    { extendRight: true },
  ),
  r(
    'gcloud_creds',
    `(?:${B}application_default_credentials\\.json|gcloud${S}(?:credentials\\.db|access_tokens\\.db|legacy_credentials))${E}`,
    ['application_default', 'gcloud'],
    'cloud_credentials',
    'critical',
    'any',
    'exact_path',
    'Google Cloud credentials',
  ),
  r(
    'azure_dir',
    `(?<![\\w-])\\.azure(?=${S})`,
    '.azure',
    'cloud_credentials',
    'high',
    'any',
    'exact_path',
    'Azure CLI profile and tokens',
    { extendRight: true },
  ),
  r(
    'azure_tokens',
    `${B}(?:accessTokens\\.json|msal_token_cache\\.(?:json|bin))${E}`,
    ['accesstokens', 'msal_token'],
    'cloud_credentials',
    'critical',
    'any',
    'filename',
    'Azure access tokens',
  ),
  r(
    'kube_config',
    `\\.kube${S}config${E}`,
    '.kube',
    'cloud_credentials',
    'critical',
    'any',
    'exact_path',
    'Kubernetes cluster credentials',
  ),
  r(
    'cloud_misc',
    `${B}(?:\\.boto|\\.s3cfg|credentials\\.tfrc\\.json)${E}`,
    ['.boto', '.s3cfg', 'tfrc'],
    'cloud_credentials',
    'high',
    'any',
    'filename',
    'cloud CLI credentials',
  ),
  // Other secrets.
  r(
    'secret_critical',
    `${B}(?:\\.netrc|_netrc|\\.git-credentials|\\.pgpass|\\.vault-token)${BAK}${E}`,
    ['netrc', 'git-credentials', 'pgpass', 'vault-token'],
    'secret_file',
    'critical',
    'any',
    'filename',
    'plaintext credentials',
  ),
  r(
    'secret_high',
    `${B}(?:\\.npmrc|\\.pypirc|\\.yarnrc\\.yml|\\.htpasswd|\\.my\\.cnf|terraform\\.tfstate)${BAK}${E}`,
    ['npmrc', 'pypirc', 'yarnrc', 'htpasswd', 'my.cnf', 'tfstate'],
    'secret_file',
    'high',
    'any',
    'filename',
    'registry tokens or service passwords',
  ),
  r(
    'docker_config',
    `\\.docker${S}config\\.json${E}`,
    '.docker',
    'secret_file',
    'high',
    'any',
    'exact_path',
    'Docker registry credentials',
  ),
  r(
    'gnupg',
    `(?<![\\w-])\\.gnupg(?:${S}(?:private-keys-v1\\.d|secring\\.gpg))?`,
    '.gnupg',
    'secret_file',
    'high',
    'any',
    'exact_path',
    'GnuPG private keyring',
    { extendRight: true },
  ),
  r(
    'cloud_json_creds',
    `${B}(?:credentials|client_secrets?(?:_[\\w-]{1,80})?|service[-_]?account[\\w-]{0,60})\\.json${E}`,
    ['credentials.json', 'client_secret', 'account'],
    'secret_file',
    'high',
    'any',
    'filename',
    'OAuth client or service-account key',
  ),
  r(
    'rails_master_key',
    `config${S}(?:master\\.key|credentials${S}[\\w-]{1,30}\\.key)${E}`,
    'config',
    'secret_file',
    'critical',
    'any',
    'exact_path',
    'Rails credentials key',
  ),
  r(
    'key_material',
    `(?<=[\\w-])\\.(?:pem|p12|pfx|kdbx)${E}`,
    ['.pem', '.p12', '.pfx', '.kdbx'],
    'secret_file',
    'high',
    'any',
    'extension',
    'private key, certificate bundle or password database',
  ),
  r('key_file', `(?<=[\\w-])\\.key${E}`, '.key', 'secret_file', 'high', 'any', 'extension', 'private key file', {
    accept: (t) => /[\\/]/.test(t) || KEY_STEMS.test(t),
  }),
  r(
    'keystore',
    `(?<=[\\w-])\\.(?:jks|keystore)${E}`,
    ['.jks', '.keystore'],
    'secret_file',
    'medium',
    'any',
    'extension',
    'Java keystore',
  ),
  // Configuration files.
  r(
    'config_high',
    `${B}(?:wp-config\\.php|database\\.yml|web\\.config|LocalSettings\\.php|tomcat-users\\.xml|secrets\\.yml)${BAK}${E}`,
    ['wp-config', 'database.yml', 'web.config', 'localsettings', 'tomcat-users', 'secrets.yml'],
    'config_file',
    'high',
    'any',
    'filename',
    'application config with database or admin credentials',
  ),
  r(
    'config_medium',
    `${B}(?:(?:nginx|httpd|apache2|lighttpd|haproxy)\\.conf|settings\\.py|local_settings\\.py|appsettings(?:\\.[\\w-]{1,30})?\\.json|\\.htaccess|sshd?_config|my\\.cnf)${BAK}${E}`,
    ['.conf', 'settings', '.htaccess', '_config', 'my.cnf'],
    'config_file',
    'medium',
    'any',
    'filename',
    'server or application configuration',
  ),
  r(
    'git_config',
    `\\.git${S}config${E}`,
    '.git',
    'config_file',
    'medium',
    'any',
    'exact_path',
    'repository config: remote URLs may embed tokens',
  ),
  r('php_ini', `${B}php\\.ini${E}`, 'php.ini', 'config_file', 'low', 'any', 'filename', 'PHP runtime configuration'),
  // Shell history.
  r(
    'shell_history',
    `${B}(?:\\.(?:bash|zsh|sh|python|mysql|psql|node_repl|sqlite|rediscli)_history|\\.zhistory|fish_history|ConsoleHost_history\\.txt)${E}`,
    ['history'],
    'shell_history',
    'high',
    'any',
    'filename',
    'command history: typed passwords and tokens',
  ),
];

// `..` (plain, %-encoded, double-encoded, overlong UTF-8, or the `....//` filter bypass) then a separator.
const TRAVERSAL_RE =
  /(?:(?:\.\.\.\.|\.\.|%2e%2e|\.%2e|%2e\.|%252e%252e|%c0%ae%c0%ae)(?:[\\/]{1,2}|%2f|%5c|%252f|%255c|%c0%af|%c1%9c)){1,64}/gi;
const ENCODED_TRAVERSAL = /%(?:2e|2f|5c|25|c0|c1)/i;
const TRAVERSAL_TRIGGERS = ['..', '%2e', '%c0'];

// Characters a path token is made of; the match grows over them (bounded) to show the whole path.
// A lookup table, not a regex: growing runs once per character of every matched path.
const PATH_CHAR = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.~%$:\\/+{}@-')
  PATH_CHAR[c.charCodeAt(0)] = 1;
const isPathChar = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c < 128 && PATH_CHAR[c] === 1;
};
const MAX_GROW = 256;
const WEB_URL = /^(?:https?|ftp|wss?):\/\/[^/\\]+/i;

interface Candidate extends SensitivePathMatch {
  /** Match span in the normalised text (before growing), for ranking overlaps. */
  coreLength: number;
  start: number;
  end: number;
}

/** Grows [start, end) over path characters, never left of `floor` (the previous match's end). */
function grow(text: string, start: number, end: number, right: boolean, floor: number): [number, number] {
  let s = start;
  const stop = Math.max(floor, start - MAX_GROW);
  while (s > stop && isPathChar(text, s - 1)) s--;
  let e = end;
  if (right) {
    while (e < text.length && e - end < MAX_GROW && isPathChar(text, e) && text[e] !== ':') e++;
    // A sentence's punctuation is not part of the path.
    while (e > end && /[.,;:!?]/.test(text[e - 1]!)) e--;
  }
  return [s, e];
}

function inferOs(token: string, os: PathOs): PathOs {
  // macOS shares the Unix layout, so its own roots override a Unix rule's guess.
  if (/^(?:~|\/Users\/[^/]+)?\/(?:private|Library)\//.test(token)) return 'macos';
  if (os !== 'any') return os;
  if (/^[a-z]:[\\/]|%\w+%|\\/i.test(token)) return 'windows';
  if (/^\/Users\//.test(token)) return 'macos';
  if (/^\/(?:home|root|etc)\//.test(token)) return 'linux';
  return 'any';
}

function depthOf(seq: string): number {
  const m = seq.match(/\.\.|%2e%2e|\.%2e|%2e\.|%252e%252e|%c0%ae%c0%ae/gi);
  return m ? m.length : 0;
}

function traversalSeverity(seq: string): PathSeverity | null {
  if (ENCODED_TRAVERSAL.test(seq) || seq.includes('....')) return 'high';
  const depth = depthOf(seq);
  // `../../` is everyday relative-import syntax; only deep runs look like an escape attempt.
  if (depth >= 6) return 'high';
  if (depth >= 4) return 'medium';
  return depth >= 2 ? 'low' : null;
}

// All triggers in one alternation (longest first), scanned once: far cheaper than one search each.
const TRIGGERS = [...new Set([...RULES.flatMap((rule) => rule.triggers), ...TRAVERSAL_TRIGGERS])].sort(
  (a, b) => b.length - a.length,
);
const TRIGGER_RE = new RegExp(TRIGGERS.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
// A trigger found implies every trigger inside it (the scan reports one alternative per position).
const IMPLIED = new Map(TRIGGERS.map((t) => [t, TRIGGERS.filter((u) => t.includes(u))]));

function triggersIn(lower: string): Set<string> {
  const found = new Set<string>();
  TRIGGER_RE.lastIndex = 0;
  for (let m = TRIGGER_RE.exec(lower); m !== null; m = TRIGGER_RE.exec(lower)) {
    for (const t of IMPLIED.get(m[0])!) found.add(t);
    // Step one character, not past the match, so overlapping triggers (`.keychain`) are seen too.
    TRIGGER_RE.lastIndex = m.index + 1;
  }
  return found;
}

/** Runs the triggered rules; records where traversal sequences that reach a sensitive file start. */
function findPathRules(text: string, found: ReadonlySet<string>, out: Candidate[], aimedAt: Set<number>): void {
  for (const rule of RULES) {
    if (!rule.triggers.some((t) => found.has(t))) continue;
    rule.re.lastIndex = 0;
    let floor = 0;
    for (let m = rule.re.exec(text); m !== null; m = rule.re.exec(text)) {
      const [s, e] = grow(text, m.index, m.index + m[0].length, rule.extendRight === true, floor);
      // The grown path is one finding; resume after it so one long path is not re-grown per match.
      floor = e;
      if (rule.re.lastIndex < e) rule.re.lastIndex = e;
      const token = text.slice(s, e);
      if (rule.accept && !rule.accept(token)) continue;
      let severity = rule.severity;
      let reason = rule.reason;
      let type = rule.type;
      if (rule.bare !== undefined && !/[\\/]|%2f|%5c/i.test(token)) {
        if (rule.bare === null) continue;
        severity = rule.bare;
      }
      TRAVERSAL_RE.lastIndex = 0;
      const traversal = TRAVERSAL_RE.exec(token);
      if (traversal && traversalSeverity(traversal[0])) {
        aimedAt.add(s + traversal.index);
        severity = shift(severity, 1);
        reason += '; reached through path traversal';
        type = 'traversal';
      } else if (WEB_URL.test(token)) {
        // A path on a web server's URL is not a file on this machine.
        severity = shift(severity, -1);
        reason += '; inside a web URL';
      }
      out.push({
        text: '',
        label: rule.category,
        confidence: CONFIDENCE[severity],
        source: 'rule',
        span: [s, e],
        os: inferOs(token, rule.os),
        severity,
        risk_reason: reason,
        matched_pattern: rule.id,
        detection_type: type,
        coreLength: m[0].length,
        start: s,
        end: e,
      });
    }
  }
}

function findTraversals(text: string, out: Candidate[], aimedAt: ReadonlySet<number>): void {
  TRAVERSAL_RE.lastIndex = 0;
  for (let m = TRAVERSAL_RE.exec(text); m !== null; m = TRAVERSAL_RE.exec(text)) {
    let severity = traversalSeverity(m[0]);
    if (!severity) continue;
    const end = m.index + m[0].length;
    // Traversal that lands on a sensitive file is an attack, whatever its depth.
    const aimed = aimedAt.has(m.index);
    if (aimed && LEVELS.indexOf(severity) < LEVELS.indexOf('high')) severity = 'high';
    out.push({
      text: '',
      label: 'path_traversal',
      confidence: CONFIDENCE[severity],
      source: 'rule',
      span: [m.index, end],
      os: /\\|%5c|%255c|%c1%9c/i.test(m[0]) ? 'windows' : 'any',
      severity,
      risk_reason: aimed ? 'directory traversal toward a sensitive file' : 'directory traversal sequence',
      matched_pattern: ENCODED_TRAVERSAL.test(m[0]) ? 'traversal_encoded' : 'traversal',
      detection_type: 'traversal',
      coreLength: m[0].length,
      start: m.index,
      end,
    });
  }
}

/** Several rules often fire on one path (`/root/.ssh/id_rsa`); keep the most severe, then the most specific. */
function pickBest(candidates: Candidate[]): Candidate[] {
  const rank = (c: Candidate) => LEVELS.indexOf(c.severity);
  const byStart = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Candidate[] = [];
  let i = 0;
  // Sweep clusters of chained overlaps, so a 1 MB input of paths stays near-linear.
  while (i < byStart.length) {
    let j = i + 1;
    let clusterEnd = byStart[i]!.end;
    while (j < byStart.length && byStart[j]!.start < clusterEnd) clusterEnd = Math.max(clusterEnd, byStart[j++]!.end);
    const ranked = byStart
      .slice(i, j)
      .sort((a, b) => rank(b) - rank(a) || b.coreLength - a.coreLength || a.start - b.start);
    const chosen: Candidate[] = [];
    for (const c of ranked) if (!chosen.some((k) => c.start < k.end && k.start < c.end)) chosen.push(c);
    kept.push(...chosen);
    i = j;
  }
  return kept;
}

/** Sensitive path references with severity, OS and reason; spans in original offsets. */
export function findSensitivePaths(input: DetectorInput): SensitivePathMatch[] {
  const { text, original } = input.text;
  if (text.length === 0) return [];
  const found = triggersIn(text.toLowerCase());
  if (found.size === 0) return [];
  const paths: Candidate[] = [];
  const aimedAt = new Set<number>();
  findPathRules(text, found, paths, aimedAt);
  const kept = pickBest(paths);
  const traversals: Candidate[] = [];
  if (TRAVERSAL_TRIGGERS.some((t) => found.has(t))) findTraversals(text, traversals, aimedAt);
  // Traversal items overlap the path they lead to on purpose: both are evidence.
  return [...kept, ...pickBest(traversals)]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map(({ coreLength: _c, start, end, ...item }) => {
      const span = input.text.toOriginal(start, end);
      return { ...item, span, text: original.slice(span[0], span[1]) };
    });
}

/** Detector: references to sensitive files and traversal sequences in any text surface. */
export const sensitivePathDetector: Detector = {
  name: 'sensitive_path',
  version: '1.0.0',
  model: 'rules',
  kind: 'entities',
  category: 'sensitive_path',
  surfaces: ALL_SURFACES,
  thresholds: { warn_above: 0.4, flag_above: 0.6, block_above: 0.85 },
  frameworks: frameworksFor('sensitive_path'),
  detect(input) {
    const items: FindingItem[] = findSensitivePaths(input).map((m) => ({
      text: m.text,
      label: m.label,
      confidence: m.confidence,
      source: m.source,
      span: m.span,
    }));
    const score = items.reduce((max, i) => Math.max(max, i.confidence), 0);
    return { detector: 'sensitive_path', score, items };
  },
};
