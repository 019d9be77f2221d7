// Writes a file whole or not at all (aside, then renamed): runs that refresh the same report at once never leave a mixed or half-written page.
import fs from 'node:fs';

export function writeFileAtomic(file: string, data: string): void {
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    fs.writeFileSync(aside, data);
    fs.renameSync(aside, file);
  } finally { fs.rmSync(aside, { force: true }); }
}
