// Writes a file whole or not at all (aside, then renamed): runs that refresh the same report at once never leave a mixed or half-written page.
import fs from 'node:fs';

/** `mode`: the file's permissions from its creation on (a file of credentials is never readable by others, not even for a moment). */
export function writeFileAtomic(file: string, data: string, mode?: number): void {
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    fs.writeFileSync(aside, data, mode === undefined ? undefined : { mode });
    fs.renameSync(aside, file);
  } finally { fs.rmSync(aside, { force: true }); }
}
