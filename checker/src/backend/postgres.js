import pg from 'pg';
import { BadInputError, errorMessage } from '../errors.js';
/** A real PostgreSQL server reached through one `pg` client. */
export class PostgresDatabase {
    client;
    url;
    description;
    kind = 'postgres';
    sessionSetup = '';
    constructor(client, url, description) {
        this.client = client;
        this.url = url;
        this.description = description;
    }
    static async connect(url) {
        const description = `PostgreSQL at ${redact(url)}`;
        const client = await openClient(url, description);
        return new PostgresDatabase(client, url, description);
    }
    async query(text, params = []) {
        const result = await this.client.query(text, params);
        return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
    }
    async exec(text) {
        await this.client.query(text);
    }
    async restart() {
        await this.client.end();
        this.client = await openClient(this.url, this.description);
        if (this.sessionSetup)
            await this.client.query(this.sessionSetup);
    }
    async newSession() {
        await this.restart();
    }
    async setSessionSetup(sql) {
        this.sessionSetup = sql;
        await this.client.query(sql);
    }
    async close() {
        await this.client.end();
    }
}
async function openClient(url, description) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('error', () => { }); // a dropped connection surfaces on the next query instead of crashing the process
    try {
        await client.connect();
    }
    catch (error) {
        await client.end().catch(() => { });
        throw new BadInputError(`cannot connect to ${description}: ${errorMessage(error)}`);
    }
    return client;
}
/** The URL without its password, for messages and reports. */
export function redact(url) {
    try {
        const parsed = new URL(url);
        if (parsed.password)
            parsed.password = '***';
        return `${parsed.host}${parsed.pathname}`;
    }
    catch {
        return '(unparseable URL)';
    }
}
//# sourceMappingURL=postgres.js.map