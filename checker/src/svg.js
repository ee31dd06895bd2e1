/**
 * The timeline as an SVG picture: one lane per worker, the lease as a bar from acquire to its
 * release or expiry, writes as marks (filled: accepted, hollow with a cross: rejected, red:
 * broke an invariant), expiry and restarts as dashed vertical lines across all lanes.
 */
export function renderSvg(events, title) {
    const workers = [...new Set(events.filter((e) => e.actor !== 'system').map((e) => e.actor))].sort();
    const step = 110;
    const left = 60;
    const top = 56;
    const lane = 64;
    const width = left + Math.max(1, events.length) * step + 40;
    const height = top + workers.length * lane + 70;
    const x = (i) => left + i * step + step / 2;
    const y = (actor) => top + workers.indexOf(actor) * lane + lane / 2;
    const out = [];
    out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`, `<rect width="100%" height="100%" fill="#ffffff"/>`, `<text x="12" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
    workers.forEach((w) => {
        out.push(`<line x1="${left}" y1="${y(w)}" x2="${width - 20}" y2="${y(w)}" stroke="#d0d0d0"/>`);
        out.push(`<text x="16" y="${y(w) + 4}" font-weight="bold">${esc(w)}</text>`);
    });
    // Lease spans.
    events.forEach((e, i) => {
        if (e.action !== 'acquire' || !e.lease)
            return;
        const end = events.findIndex((f, j) => j > i && ((f.action === 'release' && f.actor === e.actor) || f.action === 'expire' || (f.action === 'acquire' && f.actor === e.actor)));
        const x2 = end < 0 ? width - 20 : x(end);
        out.push(`<rect x="${x(i)}" y="${y(e.actor) - 9}" width="${Math.max(4, x2 - x(i))}" height="18" rx="4" fill="#cfe3ff" stroke="#5b8fd9"/>`);
        out.push(`<text x="${x(i) + 4}" y="${y(e.actor) - 13}" fill="#2f5d9e">${esc(e.lease.leaseId)}, token ${e.lease.fenceToken}</text>`);
    });
    events.forEach((e, i) => {
        const cx = x(i);
        out.push(`<text x="${cx}" y="${top - 14}" text-anchor="middle" fill="#777">t=${e.t}</text>`);
        if (e.actor === 'system') {
            const color = e.violation ? '#c62828' : '#888';
            out.push(`<line x1="${cx}" y1="${top - 8}" x2="${cx}" y2="${top + workers.length * lane}" stroke="${color}" stroke-dasharray="4 3"/>`);
            out.push(`<text x="${cx}" y="${top + workers.length * lane + 16}" text-anchor="middle" fill="${color}">${esc(shortCall(e))}</text>`);
        }
        else if (e.action === 'write' && e.write) {
            const accepted = e.write.status === 'accepted';
            const color = e.violation ? '#c62828' : accepted ? '#2e7d32' : '#555';
            if (accepted)
                out.push(`<circle cx="${cx}" cy="${y(e.actor)}" r="8" fill="${color}"/>`);
            else
                out.push(`<circle cx="${cx}" cy="${y(e.actor)}" r="8" fill="#fff" stroke="${color}" stroke-width="2"/>`, `<path d="M${cx - 4} ${y(e.actor) - 4} L${cx + 4} ${y(e.actor) + 4} M${cx + 4} ${y(e.actor) - 4} L${cx - 4} ${y(e.actor) + 4}" stroke="${color}" stroke-width="2"/>`);
            const label = `${e.write.value} @${e.write.token}: ${accepted ? 'accepted' : e.write.status === 'error' ? 'error' : 'rejected'}`;
            out.push(`<text x="${cx}" y="${y(e.actor) + 24}" text-anchor="middle" fill="${color}">${esc(label)}</text>`);
        }
        else {
            const label = e.action === 'acquire' ? (e.lease ? 'acquire' : 'acquire: busy') : e.action;
            const color = e.violation ? '#c62828' : '#333';
            out.push(`<rect x="${cx - 3}" y="${y(e.actor) - 3}" width="6" height="6" fill="${color}"/>`);
            out.push(`<text x="${cx}" y="${y(e.actor) + 24}" text-anchor="middle" fill="${color}">${esc(label)}</text>`);
        }
    });
    const violation = events.find((e) => e.violation)?.violation;
    if (violation) {
        out.push(`<text x="12" y="${height - 14}" fill="#c62828">${esc(`broken: ${violation.message}`)}</text>`);
    }
    else {
        out.push(`<text x="12" y="${height - 14}" fill="#2e7d32">every invariant holds</text>`);
    }
    out.push('</svg>');
    return out.join('\n') + '\n';
}
function shortCall(e) {
    if (e.action === 'restart')
        return 'restart';
    if (e.action === 'expire')
        return e.call.replace(' expired', ' expires');
    return e.call;
}
function esc(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
//# sourceMappingURL=svg.js.map