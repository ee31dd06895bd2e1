import { completeRoles, roleQuestions, type RoleQuestion } from './ask-roles';
import type { RuntimeCheckResult } from './run-checker';

export type ConfirmOutcome =
  | { kind: 'checked'; result: RuntimeCheckResult; roles?: string[] }
  /** The user dismissed a question: nothing more is run or shown. */
  | { kind: 'cancelled' };

/**
 * "Confirm with runtime check": run the checker on the line; when it answers that it cannot
 * name the role of every parameter (`rolesNeeded`), ask the user for each remaining one and run
 * it again with `--roles`. `ask` returns the chosen role, or undefined when dismissed.
 */
export async function confirmWithRuntimeCheck(
  run: (roles?: string[]) => PromiseLike<RuntimeCheckResult>,
  ask: (question: RoleQuestion) => PromiseLike<string | undefined>,
): Promise<ConfirmOutcome> {
  const first = await run();
  const needed = first.report.rolesNeeded;
  if (!needed) return { kind: 'checked', result: first };
  const answers = new Map<number, string>();
  for (const question of roleQuestions(needed)) {
    const role = await ask(question);
    if (role === undefined) return { kind: 'cancelled' };
    answers.set(question.param.n, role);
  }
  const roles = completeRoles(needed, answers);
  return { kind: 'checked', result: await run(roles), roles };
}
