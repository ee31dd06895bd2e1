/**
 * The contracts between the checker and the thing it checks. A user module implements
 * `ResourceAdapter` (and optionally `AuthorityAdapter`) so that any resource, SQL or not,
 * can be replayed under the stale-write interleavings. See checker/README.md.
 */
export function normalizeWriteResult(result) {
    if (typeof result === 'string') {
        return isStatus(result) ? { status: result } : { status: 'error', detail: `unknown write result "${result}"` };
    }
    if (result && typeof result === 'object' && 'status' in result && isStatus(result.status)) {
        return result;
    }
    return { status: 'error', detail: `write returned ${JSON.stringify(result)}` };
}
function isStatus(value) {
    return value === 'accepted' || value === 'stale' || value === 'duplicate' || value === 'error';
}
//# sourceMappingURL=adapter.js.map