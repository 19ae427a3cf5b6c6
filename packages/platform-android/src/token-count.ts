/**
 * The real token counter (o200k) the budgets of this package use: the one import of it, so its
 * home can move without touching the callers.
 */
export { countTokens, takeTokens } from '@toolsys/platform';
