/**
 * The package's version follows the API's: `<API major>.<revision, YYYYMMDD>.<client fix>`. Its major
 * is the path's `/v1`, its minor the dated revision (`Service-Api-Version`) its types were generated
 * from, its patch counts releases of the client alone for that revision. So `^1.20261101.0` accepts
 * every later revision of v1 and never v2. A unit test holds these equal to client/package.json's
 * version and to the service's latest revision (api/versions.ts).
 */
export const CLIENT_VERSION = '1.20261101.0';

/** The dated API revision (`Service-Api-Version`) this package's types describe. */
export const CLIENT_API_VERSION = '2026-11-01';
