// `ces check connector|webhook-receiver`: judge a vendor's own implementation (issue 6).
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';

export const checkCommand: CommandModule = {
  command: 'check <what> <url>',
  describe: 'Judge a vendor bot connector or webhook receiver clause by clause (not yet available)',
  builder: (y) => y.positional('what', { choices: ['connector', 'webhook-receiver'] as const }).positional('url', { type: 'string' }),
  handler: () => { throw new UsageError('`ces check` is not yet available in this version'); },
};
