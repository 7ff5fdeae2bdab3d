/** Reading the pages the service serves (the API reference, the dashboard) in tests. */

/** The sources of the Content-Security-Policy directive `name` (undefined when it is absent). */
export const directive = (policy: string, name: string) =>
  policy
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name)
    ?.slice(1);

/** Every `src` and `href` of a page. */
export const references = (html: string) => [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
