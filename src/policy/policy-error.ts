// The error a policy set that does not load throws: every problem, each with where it is.
import { PolicyError, type Issue } from '../errors.js';

export class PolicyLoadError extends PolicyError {
  /** `path` is `/policies` (with line:col in the message when known) or `/schema`. */
  readonly issues: Issue[];
  constructor(issues: Issue[]) {
    const lines = issues.map((i) => `  ${i.path}: ${i.message}`).join('\n');
    super('ERR_POLICY', `invalid policy set (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines}`);
    this.issues = issues;
  }
}
