/**
 * `.dockerignore` as the Docker builder reads it, for plain patterns: one per line, `#` comments, `*`
 * and `?` within one path segment, `**` across segments, `!` to take a path back in; a pattern that
 * matches a folder leaves out everything below it.
 */
export class DockerIgnore {
  private readonly rules: { exclude: boolean; re: RegExp; pattern: string }[];

  constructor(text: string) {
    this.rules = text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => {
        const exclude = !l.startsWith('!');
        const pattern = (exclude ? l : l.slice(1)).replace(/^\/+/, '').replace(/\/+$/, '');
        return { exclude, re: toRegExp(pattern), pattern };
      });
  }

  /** Whether `relativePath` (slash-separated, from the context's root) is left out of the context. */
  excludes(relativePath: string): boolean {
    const parts = relativePath.split('/').filter(Boolean);
    let excluded = false;
    for (const rule of this.rules) {
      // A rule matches the path itself or any folder above it.
      for (let n = 1; n <= parts.length; n++) {
        if (rule.re.test(parts.slice(0, n).join('/'))) {
          excluded = rule.exclude;
          break;
        }
      }
    }
    return excluded;
  }

  /** The pattern that leaves `relativePath` out, for messages (undefined when it is in). */
  why(relativePath: string): string | undefined {
    if (!this.excludes(relativePath)) return undefined;
    const parts = relativePath.split('/').filter(Boolean);
    return this.rules
      .filter((r) => r.exclude)
      .find((r) => parts.some((_, i) => r.re.test(parts.slice(0, i + 1).join('/'))))?.pattern;
  }
}

function toRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
