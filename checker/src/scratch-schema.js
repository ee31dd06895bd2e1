import { randomBytes } from 'node:crypto';
import { BadInputError } from './errors.js';
/**
 * Every check works in its own schema, `fencelint_check_<random>`, with search_path set to it
 * alone: an unqualified table name in the user's statement resolves there, never to the user's
 * table of the same name. The schema is dropped at the end, also on failure.
 */
export class ScratchSchema {
    db;
    name;
    constructor(db, name) {
        this.db = db;
        this.name = name;
    }
    static async create(db) {
        const name = `fencelint_check_${randomBytes(6).toString('hex')}`;
        await db.exec(`CREATE SCHEMA ${name}`);
        const scratch = new ScratchSchema(db, name);
        await db.setSessionSetup(`SET search_path TO ${name}`);
        return scratch;
    }
    async drop() {
        await this.db.exec(`DROP SCHEMA IF EXISTS ${this.name} CASCADE`);
    }
    /**
     * Refuse a statement that reaches any relation outside the scratch schema. PostgreSQL's own
     * plan (EXPLAIN, which does not execute) names every relation the statement reads or writes,
     * including those reached through CTEs and subqueries, with its schema.
     */
    async assertStaysInside(statement, sampleParams) {
        const name = `fencelint_guard_${randomBytes(4).toString('hex')}`;
        try {
            await this.db.query(`PREPARE ${name} AS ${statement}`);
        }
        catch (error) {
            throw new BadInputError(`PostgreSQL rejects the statement: ${error.message}`);
        }
        try {
            const plan = await this.db.query(`EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE ${name}${sampleParams.length ? `(${literalList(sampleParams)})` : ''}`);
            const outside = new Set();
            collectRelations(plan.rows[0]?.['QUERY PLAN'], (schema, relation) => {
                if (schema !== this.name)
                    outside.add(`${schema}.${relation}`);
            });
            if (outside.size > 0) {
                throw new BadInputError(`the statement reaches ${[...outside].join(', ')} outside the checker's scratch schema; ` +
                    'the checker never runs a statement against your own tables: remove the schema qualifier');
            }
        }
        finally {
            await this.db.exec(`DEALLOCATE ${name}`);
        }
    }
}
function literalList(values) {
    return values
        .map((v) => (typeof v === 'number' ? String(v) : v === null || v === undefined ? 'NULL' : `'${String(v).replace(/'/g, "''")}'`))
        .join(', ');
}
function collectRelations(node, visit) {
    if (Array.isArray(node)) {
        for (const item of node)
            collectRelations(item, visit);
        return;
    }
    if (typeof node === 'string') {
        // pg returns the JSON column parsed; PGlite may return text.
        try {
            collectRelations(JSON.parse(node), visit);
        }
        catch {
            /* not JSON */
        }
        return;
    }
    if (!node || typeof node !== 'object')
        return;
    const record = node;
    if (typeof record['Relation Name'] === 'string') {
        visit(String(record['Schema'] ?? ''), record['Relation Name']);
    }
    for (const value of Object.values(record)) {
        if (value && typeof value === 'object')
            collectRelations(value, visit);
    }
}
//# sourceMappingURL=scratch-schema.js.map