// `ces load <scenario>`: k6 load scenarios with thresholds (issue 8).
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';

export const loadCommand: CommandModule = {
  command: 'load <scenario>',
  describe: 'Run a k6 load scenario against a target (not yet available)',
  builder: (y) => y.positional('scenario', { type: 'string' }).option('target', { type: 'string' }),
  handler: () => { throw new UsageError('`ces load` is not yet available in this version'); },
};
