import { renderTimeline } from './timeline.js';
export function verdictOf(scenarios, exploration) {
    return scenarios.some((s) => s.status === 'broken') || exploration.some((e) => e.counterExample) ? 'broken' : 'holds';
}
export function counterExampleOf(scenarios, exploration) {
    const explored = exploration
        .map((e) => e.counterExample)
        .filter((c) => c !== undefined)
        .sort((a, b) => a.schedule.length - b.schedule.length)[0];
    if (explored)
        return explored;
    const scenario = scenarios.find((s) => s.status === 'broken');
    if (!scenario)
        return undefined;
    const v = scenario.violations[0];
    return {
        invariant: v.invariant,
        message: v.message,
        schedule: scenario.timeline.map((e) => `${e.actor}:${e.action}`),
        timeline: scenario.timeline,
    };
}
/** The report as text: verdict, then each scenario with its timeline when it broke. */
export function renderText(report, options = {}) {
    const lines = [];
    const s = report.subject;
    lines.push(`fencelint-check: ${report.verdict === 'holds' ? 'the fence holds' : 'the fence is BROKEN'}`);
    lines.push(`  subject:   ${s.kind === 'sql' ? oneLine(s.text) : `module ${s.text}`}`);
    if (s.roles)
        lines.push(`  roles:     ${s.roles.map((r, i) => `$${i + 1}=${r}`).join(' ')}`);
    if (s.table)
        lines.push(`  table:     ${s.table} (${describeSource(s.tableSource)})${s.tokenColumn ? `, token column ${s.tokenColumn}` : ', no token column'}`);
    lines.push(`  authority: ${s.authority}`);
    lines.push(`  backend:   ${report.backend}`);
    lines.push('');
    report.scenarios.forEach((sc, i) => {
        const mark = sc.status === 'holds' ? 'ok  ' : sc.status === 'broken' ? 'FAIL' : 'n/a ';
        lines.push(`${mark} ${i + 1}. ${sc.id}: ${sc.title}`);
        if (sc.status === 'not-applicable')
            lines.push(`       ${sc.reason}`);
        else if (sc.status === 'broken' || options.verbose) {
            if (sc.status === 'broken')
                lines.push(`       ${sc.reason}`);
            lines.push(indent(renderTimeline(sc.timeline), 7), '');
        }
    });
    for (const e of report.exploration) {
        const mark = e.counterExample ? 'FAIL' : 'ok  ';
        lines.push(`${mark} 6. explore ${e.workers} workers: ${e.states} states, ${e.schedules} schedules (bound: ${e.bound.maxExpires} expiries, ${e.bound.maxRestarts} restart)`);
        if (e.counterExample) {
            lines.push(`       minimal counter-example (${e.counterExample.schedule.length} steps): ${e.counterExample.message}`);
            lines.push(indent(renderTimeline(e.counterExample.timeline), 7), '');
        }
    }
    return lines.join('\n');
}
function describeSource(source) {
    switch (source) {
        case 'schema-file':
            return 'from --schema';
        case 'catalog':
            return "structure copied from the database's own table, no rows";
        case 'inferred':
            return 'inferred from the statement';
        default:
            return 'unknown';
    }
}
function indent(text, n) {
    return text
        .split('\n')
        .map((l) => ' '.repeat(n) + l)
        .join('\n');
}
function oneLine(sql) {
    return sql.replace(/\s+/g, ' ').trim();
}
//# sourceMappingURL=report.js.map