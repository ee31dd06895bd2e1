/**
 * The checker's own lock authority: a table in the scratch schema holding, per key, a durable
 * monotonic counter and the live lease. acquire is one `UPDATE ... RETURNING token`, release
 * names the lease it releases, so it is the reference a user's authority is compared with.
 * Tokens start at 41, as in the article.
 */
export const AUTHORITY_TABLE = 'fencelint_authority';
const FIRST_TOKEN = 41;
export class DurableAuthority {
    db;
    clock;
    /** Leases granted per owner, to name a second lease of the same owner `lease-A-2`. */
    granted = new Map();
    constructor(db, clock) {
        this.db = db;
        this.clock = clock;
    }
    async install() {
        await this.db.exec(`CREATE TABLE ${AUTHORITY_TABLE} (resource_key text PRIMARY KEY, token bigint NOT NULL, lease_id text, owner_id text, expires_at bigint)`);
    }
    async acquire(key, ttlMs, ownerId) {
        const now = this.clock.now();
        const count = (this.granted.get(ownerId) ?? 0) + 1;
        const leaseId = `lease-${ownerId}${count === 1 ? '' : `-${count}`}`;
        await this.db.query(`INSERT INTO ${AUTHORITY_TABLE} (resource_key, token) VALUES ($1, $2) ON CONFLICT (resource_key) DO NOTHING`, [key, FIRST_TOKEN - 1]);
        const granted = await this.db.query(`UPDATE ${AUTHORITY_TABLE} SET token = token + 1, lease_id = $2, owner_id = $3, expires_at = $4
        WHERE resource_key = $1 AND (lease_id IS NULL OR expires_at <= $5) RETURNING token`, [key, leaseId, ownerId, now + ttlMs, now]);
        if (granted.rows.length === 0)
            return null;
        this.granted.set(ownerId, count);
        return { key, ownerId, leaseId, fenceToken: Number(granted.rows[0].token) };
    }
    async release(handle) {
        const released = await this.db.query(`UPDATE ${AUTHORITY_TABLE} SET lease_id = NULL, owner_id = NULL, expires_at = NULL WHERE resource_key = $1 AND lease_id = $2`, [handle.key, handle.leaseId]);
        return released.rowCount > 0;
    }
    async holder(key) {
        const live = await this.db.query(`SELECT lease_id, token FROM ${AUTHORITY_TABLE} WHERE resource_key = $1 AND lease_id IS NOT NULL AND expires_at > $2`, [key, this.clock.now()]);
        const row = live.rows[0];
        return row ? { leaseId: String(row.lease_id), fenceToken: Number(row.token) } : null;
    }
    /** Reopen the database that holds the table: the counter is durable, so it survives. */
    async restart() {
        await this.db.restart();
    }
    /** The in-process part of the state (lease naming), for backtracking with savepoints. */
    snapshot() {
        return new Map(this.granted);
    }
    restore(granted) {
        this.granted.clear();
        for (const [k, v] of granted)
            this.granted.set(k, v);
    }
    async reset() {
        this.granted.clear();
        await this.db.exec(`TRUNCATE ${AUTHORITY_TABLE}`);
    }
}
//# sourceMappingURL=durable-authority.js.map