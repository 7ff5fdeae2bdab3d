import { useEffect, useState } from 'react';
import type { Scope, Session } from './api.ts';

/** At most this many keys and members are read to name actors; beyond, an actor shows its id. */
const MAX_NAMED = 2000;

/**
 * Names for the audit log's actors: each API key's name (`ak_…`, with `api_keys:read`) and each
 * member's email (with `admin`, which lists members). What the credential may not list, or what
 * fails to load, stays unnamed: the page then shows the id, as before.
 */
export function useActorNames({ client, principal }: Session): ReadonlyMap<string, string> {
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    const holds = (scope: Scope) => principal.scopes.includes('admin') || principal.scopes.includes(scope);
    const collect = async (items: AsyncIterable<{ id: string; name: string }>) => {
      const found = new Map<string, string>();
      for await (const { id, name } of items) {
        found.set(id, name);
        if (found.size >= MAX_NAMED) break;
      }
      return found;
    };
    const keys = holds('api_keys:read')
      ? collect(
          (async function* () {
            for await (const k of client.apiKeys.iterate({ limit: 100 })) yield { id: k.id, name: k.name };
          })(),
        )
      : Promise.resolve(new Map<string, string>());
    const users = holds('admin')
      ? collect(
          (async function* () {
            for await (const u of client.users.iterate({ limit: 100 })) if (u.email) yield { id: u.id, name: u.email };
          })(),
        )
      : Promise.resolve(new Map<string, string>());
    const settle = (p: Promise<Map<string, string>>) => p.catch(() => new Map<string, string>());
    void Promise.all([settle(keys), settle(users)]).then(([k, u]) => live && setNames(new Map([...k, ...u])));
    return () => {
      live = false;
    };
  }, [client, principal]);
  return names;
}
