import { ident, keyColumnOf, seedRow } from './table-setup.js';
/**
 * The user's SQL write as a resource: parameters bound by role, `rowCount > 0` is accepted,
 * `rowCount = 0` is the explicit stale outcome the caller must check.
 */
export class SqlResource {
    db;
    write_;
    key;
    constructor(db, write_, key) {
        this.db = db;
        this.write_ = write_;
        this.key = key;
    }
    paramsFor(request) {
        return this.write_.roles.map((role) => {
            switch (role) {
                case 'value':
                    return request.value;
                case 'key':
                    return request.key;
                case 'token':
                    return request.fenceToken;
                case 'operationId':
                    return request.operationId ?? null;
            }
        });
    }
    /** Set while the exploration runs inside one transaction: a failing write must not abort it. */
    inTransaction = false;
    async write(request) {
        let rowCount;
        if (this.inTransaction)
            await this.db.exec('SAVEPOINT fencelint_write');
        try {
            rowCount = (await this.db.query(this.write_.text, this.paramsFor(request))).rowCount;
        }
        catch (error) {
            if (this.inTransaction)
                await this.db.exec('ROLLBACK TO SAVEPOINT fencelint_write');
            return { status: 'error', detail: error.message };
        }
        if (this.inTransaction)
            await this.db.exec('RELEASE SAVEPOINT fencelint_write');
        const row = await this.row(request.key);
        // The checker reads the value right after every write; that read is answered from this row.
        this.rowAfterWrite = { key: request.key, row };
        const token = row?.token;
        return { status: rowCount > 0 ? 'accepted' : 'stale', ...(token !== null && token !== undefined ? { highest: Number(token) } : {}) };
    }
    rowAfterWrite;
    async read(key) {
        const cached = this.rowAfterWrite?.key === key ? this.rowAfterWrite : undefined;
        this.rowAfterWrite = undefined;
        const row = cached ? cached.row : await this.row(key);
        return row ? (row.value === null ? null : String(row.value)) : null;
    }
    /** Forget the row read after the last write (the state moved under it: rollback, restart, reset). */
    forgetCachedRow() {
        this.rowAfterWrite = undefined;
    }
    async row(key) {
        const w = this.write_;
        const token = w.tokenColumn ? `, ${ident(w.tokenColumn)} AS token` : '';
        const found = await this.db.query(`SELECT ${ident(w.valueColumn)}::text AS value${token} FROM ${ident(w.table)} WHERE ${ident(keyColumnOf(w))} = $1`, [key]);
        return found.rows[0];
    }
    async restart() {
        this.forgetCachedRow();
        await this.db.restart();
    }
    async reset() {
        this.forgetCachedRow();
        await this.db.exec(`DELETE FROM ${ident(this.write_.table)}`);
        await seedRow(this.db, this.write_, this.key);
    }
}
//# sourceMappingURL=sql-resource.js.map