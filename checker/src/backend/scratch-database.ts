import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { BadInputError, errorMessage } from '../errors.js';
import { openClient, PostgresDatabase, withDatabase, type ServerTarget, type SessionTimeouts } from './postgres.js';

/**
 * Isolation by construction on a real server: every check runs in a database of its own,
 * `fencelint_check_<random>`, created from template0 (so none of the user's tables, functions,
 * schemas or extensions exist there), and the session that runs the user's statement and
 * schema file is connected to that database only. Nothing it does can reach the user's data:
 * PostgreSQL has no cross-database statements. When the login role is a superuser, the check
 * session also logs in as a throwaway role of the same name without any privilege (no
 * superuser, no CREATEDB or CREATEROLE, no untrusted extensions, no COPY PROGRAM, and it can
 * signal only its own backends), owner of the scratch database. It is a member of no role; it
 * must INHERIT all the same, because on PostgreSQL 15 the scratch database's `public` schema
 * belongs to `pg_database_owner`, whose rights a NOINHERIT owner would not have.
 *
 * The connection to the URL's own database runs only the checker's fixed statements: CREATE
 * and DROP of the scratch database and role, and read-only catalog queries describing the
 * user's table (see catalog-copy.ts). Both are dropped at the end, whatever happened; a lost
 * admin connection is opened again for that.
 */
export class ScratchDatabase {
  private constructor(
    private admin: pg.Client,
    private readonly target: ServerTarget,
    private readonly timeouts: SessionTimeouts,
    readonly name: string,
    private readonly role: string | undefined,
    private readonly serverVersion: number,
  ) {}

  /** The check's own session, connected to the scratch database only. */
  session!: PostgresDatabase;
  private dropped = false;

  static async create(target: ServerTarget, timeouts: SessionTimeouts): Promise<ScratchDatabase> {
    const admin = await openClient(target, timeouts);
    let scratch: ScratchDatabase | undefined;
    try {
      const me = (
        await admin.query(
          `SELECT current_user AS name, r.rolsuper AS super, r.rolcreatedb AS createdb, current_setting('server_version_num')::int AS version
             FROM pg_roles r WHERE r.rolname = current_user`,
        )
      ).rows[0] as { name: string; super: boolean; createdb: boolean; version: number };
      if (!me.super && !me.createdb) throw cannotCreate(me.name, target, 'it has neither CREATEDB nor SUPERUSER');
      const name = `fencelint_check_${randomBytes(6).toString('hex')}`;
      const password = me.super ? randomBytes(18).toString('base64url') : undefined;
      scratch = new ScratchDatabase(admin, target, timeouts, name, password ? name : undefined, me.version);
      if (password) {
        await admin.query(
          `CREATE ROLE ${name} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 8`,
        );
      }
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE template0${password ? ` OWNER ${name}` : ''}`);
      } catch (error) {
        if ((error as { code?: string }).code === '42501') throw cannotCreate(me.name, target, errorMessage(error));
        throw new BadInputError(`cannot create the scratch database on ${target.description}: ${errorMessage(error)}`);
      }
      const description = `PostgreSQL at ${target.description} (scratch database ${name})`;
      let session: PostgresDatabase | undefined;
      if (password) {
        // pg_hba may not let a new role in (e.g. only named users): then the login role runs it.
        session = await PostgresDatabase.connect(
          { url: withDatabase(target.url, name, { user: name, password }), description: `${target.description} as ${name}` },
          timeouts,
          description,
        ).catch(() => undefined);
      }
      session ??= await PostgresDatabase.connect({ url: withDatabase(target.url, name), description: target.description }, timeouts, description);
      scratch.session = session;
      return scratch;
    } catch (error) {
      if (scratch) await scratch.drop().catch(() => {});
      else await admin.end().catch(() => {});
      throw error;
    }
  }

  /** Read-only queries on the user's database, for the structure of a table of theirs. */
  async readCatalog<T>(read: (query: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
    await this.admin.query('BEGIN READ ONLY');
    try {
      return await read(async (text, params) => (await this.admin.query(text, params)).rows as Record<string, unknown>[]);
    } finally {
      await this.admin.query('ROLLBACK').catch(() => {});
    }
  }

  /**
   * Drop the scratch database (terminating whatever session is still in it) and the role.
   * Idempotent; retried on a fresh admin connection when the first one was lost.
   */
  async drop(): Promise<void> {
    if (this.dropped) return;
    // Not awaited first: a session busy in a statement closes only once DROP ... FORCE ends its backend.
    const closing = this.session?.close().catch(() => {});
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        if (attempt > 0) {
          await this.admin.end().catch(() => {});
          this.admin = await openClient(this.target, this.timeouts);
        }
        if (this.serverVersion >= 130000) {
          await this.admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
        } else {
          await this.admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [this.name]);
          await this.admin.query(`DROP DATABASE IF EXISTS ${this.name}`);
        }
        if (this.role) await this.admin.query(`DROP ROLE IF EXISTS ${this.role}`);
        this.dropped = true;
        break;
      } catch (error) {
        lastError = error;
      }
    }
    await this.admin.end().catch(() => {});
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    if (!this.dropped) {
      throw new BadInputError(
        `could not drop the scratch database ${this.name}${this.role ? ` and role ${this.role}` : ''} on ${this.target.description}: ${errorMessage(lastError)}; drop them by hand`,
      );
    }
  }
}

function cannotCreate(role: string, target: ServerTarget, why: string): BadInputError {
  return new BadInputError(
    `the role "${role}" may not create databases on ${target.description} (${why}). The checker runs every check in a ` +
      'database of its own and never in yours. Either leave out --database-url (and DATABASE_URL) to check on the embedded ' +
      'PGlite, or point --database-url at a disposable server where the role may create databases (ALTER ROLE ... CREATEDB)',
  );
}
