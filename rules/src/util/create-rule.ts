import { ESLintUtils } from '@typescript-eslint/utils';

export interface FencelintDocs {
  description: string;
  recommended?: boolean;
  /** Whether the rule needs type information; none of ours does today. */
  requiresTypeChecking?: boolean;
}

export const DOCS_BASE = 'https://github.com/fencelint/fencelint/blob/main/rules/docs/rules/';

export const docsUrl = (name: string): string => `${DOCS_BASE}${name}.md`;

export const createRule = ESLintUtils.RuleCreator<FencelintDocs>(docsUrl);
