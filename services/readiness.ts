import { ping, type Db } from '../store/db.ts';

/** Whether this process can serve: today, whether its database answers. */
export async function databaseReady(db: Db): Promise<boolean> {
  try {
    await ping(db);
    return true;
  } catch {
    return false;
  }
}
