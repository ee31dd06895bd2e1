/**
 * The checker's view of a SQL write, taken from the analysis core's SQL understanding
 * (`eslint-plugin-fencelint/core`): which table, and which column holds the key, the value,
 * the fence token and the operationId. The checker never parses SQL itself.
 */
import { BadInputError } from './errors.js';
export const ROLES = ['value', 'key', 'token', 'operationId'];
let core;
async function loadCore() {
    core ??= (async () => {
        const specifier = 'eslint-plugin-fencelint/core';
        let mod;
        try {
            mod = (await import(specifier));
        }
        catch (error) {
            throw new Error(`the SQL understanding (${specifier}) is not available: ${error.message}`);
        }
        if (typeof mod.analyzeSql !== 'function' || typeof mod.loadSqlParser !== 'function') {
            throw new Error(`${specifier} does not export analyzeSql/loadSqlParser`);
        }
        await mod.loadSqlParser();
        return mod;
    })();
    return core;
}
export function parseRoles(spec) {
    const roles = spec.split(',').map((r) => r.trim()).filter((r) => r !== '');
    if (roles.length === 0)
        throw new BadInputError('--roles is empty; expected e.g. --roles value,key,token');
    const seen = new Set();
    for (const role of roles) {
        const canonical = ROLES.find((r) => r.toLowerCase() === role.toLowerCase());
        if (!canonical) {
            throw new BadInputError(`unknown role "${role}" in --roles; each $n is one of: ${ROLES.join(', ')}`);
        }
        if (seen.has(canonical))
            throw new BadInputError(`role "${canonical}" is given twice in --roles`);
        seen.add(canonical);
    }
    return roles.map((role) => ROLES.find((r) => r.toLowerCase() === role.toLowerCase()));
}
/** Understand `sql` as one write whose parameters have `roles`; BadInputError when it cannot be checked. */
export async function understandWrite(sql, roles, dialect = 'postgres', overrides = {}) {
    if (!roles.includes('value')) {
        throw new BadInputError('--roles must name the "value" parameter (and usually "key" and "token")');
    }
    let sqlCore;
    try {
        sqlCore = await loadCore();
    }
    catch (error) {
        throw new BadInputError(error.message);
    }
    const analysis = sqlCore.analyzeSql(sql, dialect);
    if (!analysis)
        throw new BadInputError(`cannot parse the statement as ${dialect} SQL: ${oneLine(sql)}`);
    const writes = analysis.statements.filter((s) => s.kind === 'update' || s.kind === 'insert' || s.kind === 'delete' || s.kind === 'merge');
    if (writes.length === 0)
        throw new BadInputError(`the statement is not a write (UPDATE, INSERT, DELETE or MERGE): ${oneLine(sql)}`);
    if (writes.length > 1)
        throw new BadInputError('the statement holds more than one write; give one write at a time');
    const stmt = writes[0];
    const allParams = new Set(analysis.statements.flatMap((s) => s.params));
    const maxParam = Math.max(0, ...allParams);
    if (maxParam !== roles.length) {
        throw new BadInputError(`the statement uses ${maxParam} parameter(s) ($1..$${maxParam}) but --roles names ${roles.length} (${roles.join(',')})`);
    }
    const paramOf = (role) => {
        const i = roles.indexOf(role);
        return i < 0 ? undefined : i + 1;
    };
    const columnFor = (role) => {
        const n = paramOf(role);
        if (n === undefined)
            return undefined;
        const assigned = [...stmt.assignments, ...(stmt.insertedValues ?? [])].find((a) => a.value.params.includes(n));
        if (assigned)
            return assigned.column;
        return stmt.conditions.find((c) => c.value.params.includes(n))?.column;
    };
    const tokenParam = paramOf('token');
    const table = overrides.table ?? stmt.table;
    if (!table)
        throw new BadInputError('cannot tell which table the statement writes');
    const keyParam = paramOf('key');
    const keyColumn = overrides.keyColumn ?? (keyParam !== undefined ? keyColumnFor(stmt, keyParam) : undefined);
    const valueColumn = overrides.valueColumn ??
        [...stmt.assignments, ...(stmt.insertedValues ?? [])].find((a) => a.value.params.includes(paramOf('value')))?.column;
    if (!valueColumn)
        throw new BadInputError('cannot tell which column receives the value (the "value" parameter is never assigned); pass --value-column');
    const tokenColumn = overrides.tokenColumn ?? columnFor('token');
    const tokenCompared = tokenParam !== undefined && stmt.conditions.some((c) => c.value.params.includes(tokenParam) && c.column === tokenColumn);
    const tokenStored = tokenParam !== undefined && stmt.assignments.some((a) => a.value.params.includes(tokenParam));
    return {
        text: analysis.text,
        kind: stmt.kind,
        upsert: stmt.upsert,
        table,
        keyColumn,
        valueColumn,
        tokenColumn,
        operationIdColumn: overrides.operationIdColumn ?? columnFor('operationId'),
        roles,
        tokenCompared,
        tokenStored,
    };
}
function keyColumnFor(stmt, keyParam) {
    const compared = stmt.conditions.find((c) => c.op === '=' && c.value.params.includes(keyParam));
    if (compared)
        return compared.column;
    return [...stmt.assignments, ...(stmt.insertedValues ?? [])].find((a) => a.value.params.includes(keyParam))?.column;
}
function oneLine(sql) {
    const flat = sql.replace(/\s+/g, ' ').trim();
    return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
//# sourceMappingURL=sql-understanding.js.map