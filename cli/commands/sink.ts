// `ces sink`: the webhook sink on its own, for a vendor testing its sender (issue 5).
import type { CommandModule } from 'yargs';
import { UsageError } from '../usage.js';

export const sinkCommand: CommandModule = {
  command: 'sink',
  describe: 'Run the webhook sink alone (not yet available)',
  handler: () => { throw new UsageError('`ces sink` is not yet available in this version'); },
};
