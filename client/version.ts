/** The package's version, sent in the default `User-Agent` (a test holds it equal to package.json's). */
export const CLIENT_VERSION = '0.1.0';
