/**
 * A file split into groups of top-level statements that cannot change each other's findings
 * (see `outline.ts`), and each group's slice: the file's text with every other group blanked
 * to spaces, line breaks kept, so a finding in the slice has the line, column and offsets it
 * has in the file. The statements no group owns (imports, types, plain constants) and the
 * comments the linter reads stay in every slice.
 */
import { createHash } from 'node:crypto';
import { outlineOf, type Outline, type Statement } from './outline.js';

export interface SliceGroup {
  /** The group's statements, in source order. */
  members: Statement[];
  /** Passive units the members name: in the slice, but their findings come from their own group. */
  context: Statement[];
  /** Content address: the members' text and positions, the context's, the shared statements', the caller's key. */
  key: string;
}

export interface SlicePlan {
  outline: Outline;
  groups: SliceGroup[];
  lineStarts: number[];
}

export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line and 0-based column of an offset, as ESLint counts them. */
export function positionOf(offset: number, lineStarts: number[]): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - lineStarts[low] };
}

export function offsetOf(line: number, column: number, lineStarts: number[]): number {
  return lineStarts[line - 1] + column;
}

function find(parent: number[], i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/** The groups of `text`, or undefined when it cannot be split (then lint it whole). */
export function planSlices(text: string, filename: string, contextKey: string): SlicePlan | undefined {
  const outline = outlineOf(text, filename);
  if (!outline) return undefined;
  const { statements } = outline;
  const units = statements.filter((s) => s.unit);
  if (units.length < 2) return undefined;

  // Names through which two statements can reach each other's findings. A passive unit's
  // names tie nothing: the slices that name it hold it as context.
  const linking = new Set<string>();
  const linkingMembers = new Set<string>();
  const passiveBy = new Map<string, Statement>();
  for (const s of statements) {
    for (const name of s.shared) linking.add(name);
    if (!s.unit) continue;
    for (const name of s.keyed) linking.add(name);
    for (const name of s.keyedMembers) linkingMembers.add(name);
    for (const name of s.declares) linking.add(name);
  }
  const passive = new Set<Statement>();
  for (const s of units) {
    if (!s.passive || s.declares.size === 0) continue;
    // It must name no other unit's declaration, and nothing else may declare what it declares.
    const names = [...s.mentions].filter((n) => linking.has(n) && !s.declares.has(n) && !s.keyed.has(n));
    if (names.length > 0 || [...s.members].some((n) => linkingMembers.has(n) && !s.keyedMembers.has(n))) continue;
    if (units.some((u) => u !== s && [...s.declares].some((n) => u.declares.has(n) || u.keyed.has(n)))) continue;
    passive.add(s);
    for (const name of s.declares) passiveBy.set(name, s);
  }
  for (const name of passiveBy.keys()) linking.delete(name);
  for (const s of passive) for (const name of [...s.keyed, ...s.keyedMembers]) {
    if (!units.some((u) => u !== s && (u.keyed.has(name) || u.keyedMembers.has(name) || u.declares.has(name)))) {
      linking.delete(name);
      linkingMembers.delete(name);
    }
  }
  const parent = units.map((_, i) => i);
  const first = new Map<string, number>();
  const tie = (key: string, i: number) => {
    const seen = first.get(key);
    if (seen === undefined) first.set(key, i);
    else parent[find(parent, i)] = find(parent, seen);
  };
  units.forEach((unit, i) => {
    if (passive.has(unit)) return;
    for (const name of unit.mentions) {
      if (linking.has(name)) tie(`v:${name}`, i);
      if (linkingMembers.has(name)) tie(`m:${name}`, i);
    }
    for (const name of unit.members) if (linkingMembers.has(name)) tie(`m:${name}`, i);
  });

  const lineStarts = lineStartsOf(text);
  const place = (range: [number, number]) => {
    const at = positionOf(range[0], lineStarts);
    return `${at.line}:${at.column}:${range[1] - range[0]}\n${text.slice(range[0], range[1])}\n`;
  };
  const shared = createHash('sha1').update(contextKey).update('\0').update(filename).update('\0');
  for (const s of statements) if (!s.unit) shared.update(place(s.range));
  for (const range of outline.directives) shared.update(place(range));
  const sharedKey = shared.digest('hex');

  const byRoot = new Map<number, Statement[]>();
  units.forEach((unit, i) => {
    if (passive.has(unit)) return;
    const root = find(parent, i);
    const list = byRoot.get(root);
    if (list) list.push(unit);
    else byRoot.set(root, [unit]);
  });
  const groups: SliceGroup[] = [];
  const contextOf = (members: Statement[]) => {
    const held = new Set<Statement>();
    for (const m of members) for (const name of m.mentions) {
      const p = passiveBy.get(name);
      if (p) held.add(p);
    }
    return [...held];
  };
  const addGroup = (members: Statement[], context: Statement[]) => {
    const hash = createHash('sha1').update(sharedKey);
    for (const member of members) hash.update(place(member.range));
    hash.update('\0context\0');
    for (const s of context) hash.update(place(s.range));
    groups.push({ members, context, key: hash.digest('hex') });
  };
  for (const members of byRoot.values()) addGroup(members, contextOf(members));
  // Each passive unit's own findings come from a slice of its own.
  for (const s of passive) addGroup([s], []);
  return { outline, groups, lineStarts };
}

function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

/** The file's text with every unit outside `group` blanked, the directive comments inside them kept. */
export function sliceText(text: string, plan: SlicePlan, group: SliceGroup): string {
  const keep = new Set([...group.members, ...group.context]);
  const parts: string[] = [];
  let at = 0;
  const directives = plan.outline.directives;
  let d = 0;
  for (const s of plan.outline.statements) {
    if (!s.unit || keep.has(s)) continue;
    const [start, end] = s.range;
    parts.push(text.slice(at, start));
    let cursor = start;
    while (d < directives.length && directives[d][1] <= start) d++;
    for (let k = d; k < directives.length && directives[k][0] < end; k++) {
      const [cStart, cEnd] = directives[k];
      if (cStart < start || cEnd > end) continue;
      parts.push(blank(text.slice(cursor, cStart)), text.slice(cStart, cEnd));
      cursor = cEnd;
    }
    parts.push(blank(text.slice(cursor, end)));
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** Whether an offset lies in one of the group's own statements. */
export function inGroup(group: SliceGroup, offset: number): boolean {
  return group.members.some((m) => m.range[0] <= offset && offset < m.range[1]);
}
