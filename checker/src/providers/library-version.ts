import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** "ioredis 5.9.3": the version installed next to the checker, read from the package's own package.json. */
export function libraryVersion(name: string): string {
  try {
    let dir = dirname(require.resolve(name));
    while (dirname(dir) !== dir) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (parsed.name === name) return `${name} ${parsed.version}`;
      }
      dir = dirname(dir);
    }
  } catch {
    // fall through
  }
  return name;
}
