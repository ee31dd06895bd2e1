import { randomBytes } from 'node:crypto';
import type { Database } from './backend/database.js';

/**
 * The schema a check puts its tables in, `fencelint_check_<random>`, with search_path set to
 * it. It lives in a database that exists for this check alone (a fresh copy of PGlite's
 * template, or a scratch database on a server, see backend/scratch-database.ts), so it only
 * keeps the checker's own tables apart from whatever the statement creates; it is no safety
 * boundary and needs none.
 */
export class ScratchSchema {
  private constructor(
    readonly db: Database,
    readonly name: string,
  ) {}

  static async create(db: Database): Promise<ScratchSchema> {
    const name = `fencelint_check_${randomBytes(6).toString('hex')}`;
    await db.exec(`CREATE SCHEMA ${name}`);
    const scratch = new ScratchSchema(db, name);
    await db.setSessionSetup(`SET search_path TO ${name}`);
    return scratch;
  }

  /** Back to an empty schema (after migrations that did not create the statement's table). */
  async empty(): Promise<void> {
    await this.db.exec(`DROP SCHEMA ${this.name} CASCADE; CREATE SCHEMA ${this.name}`);
  }
}
