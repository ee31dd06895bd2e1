import type { BoundParam, RolesNeeded } from './parse-report';

/** The roles the checker knows (`fencelint-check --roles`), as the quick pick offers them. */
export const ROLE_CHOICES: readonly { role: string; description: string }[] = [
  { role: 'value', description: 'the data the write stores' },
  { role: 'key', description: 'which row: matched with = in the condition' },
  { role: 'token', description: 'the fence token from the lock: compared with the stored one, and stored' },
  { role: 'operationId', description: 'the id of the operation, for idempotent redelivery' },
  { role: 'other', description: 'outside the fence (a timestamp, an author): one fixed value in every write' },
];

/** One question: the role of one `$n`, with the expression bound to it. */
export interface RoleQuestion {
  param: BoundParam;
  /** "1 of 2" among the parameters asked for. */
  index: number;
  total: number;
  title: string;
  placeHolder: string;
  choices: typeof ROLE_CHOICES;
}

/** The parameters whose role the checker could not name, each as a question for the quick pick. */
export function roleQuestions(needed: RolesNeeded): RoleQuestion[] {
  const open = needed.params.filter((p) => p.role === undefined);
  const statement = needed.statement ? `  in  ${needed.statement.replace(/\s+/g, ' ').trim()}` : '';
  return open.map((param, i) => ({
    param,
    index: i + 1,
    total: open.length,
    title: `fencelint: role of $${param.n} in ${needed.location} (${i + 1} of ${open.length})`,
    placeHolder: `$${param.n} = ${param.text ?? '(expression not found)'}${statement}`,
    choices: ROLE_CHOICES,
  }));
}

/** Every parameter's role: the checker's own where it named one, else the user's answer. */
export function completeRoles(needed: RolesNeeded, answers: ReadonlyMap<number, string>): string[] {
  return needed.params.map((p) => {
    const role = p.role ?? answers.get(p.n);
    if (role === undefined) throw new RangeError(`no role for $${p.n}`);
    return role;
  });
}
