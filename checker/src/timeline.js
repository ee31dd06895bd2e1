export function renderTimeline(events) {
    const width = Math.max(1, ...events.map((e) => String(e.t).length));
    return events
        .map((e) => {
        const time = `t=${String(e.t).padEnd(width)}`;
        const who = e.actor === 'system' ? '' : `${e.actor}: `;
        const line = `${time} ${who}${e.call}${e.result !== undefined ? ` -> ${e.result}` : ''}`;
        return e.violation ? `${line}\n${' '.repeat(time.length + 1)}!! ${e.violation.message}` : line;
    })
        .join('\n');
}
//# sourceMappingURL=timeline.js.map