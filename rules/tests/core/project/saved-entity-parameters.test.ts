/**
 * A TypeORM entity handed to a service that saves it (`keep(crate: Crate)` over
 * `this.crates.save(crate)`): the repository writes the caller's record back, so a call under a
 * lock is a late write when the caller passes a record it read. The entity may extend
 * `BaseEntity` (through the project's own base) or only carry `@Entity()`. A record the caller has
 * just built (`new Bin()`, `repo.create(...)`) is a new row; a parameter typed with a class that
 * is no entity is no record.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findings, project, type Project } from './project-helpers.js';

let current: Project | undefined;
afterEach(() => {
  current?.remove();
  current = undefined;
});

const files = {
  'package.json': JSON.stringify({ name: 'depot', dependencies: { typeorm: '0.3', redlock: '5', ioredis: '5' } }),
  'src/entities/Stamped.ts': `import { BaseEntity, Column } from 'typeorm';
export abstract class Stamped extends BaseEntity {
  @Column() touchedAt!: Date;
}
`,
  'src/entities/Crate.ts': `import { Entity, Column } from 'typeorm';
import { Stamped } from './Stamped';
@Entity('crates')
export class Crate extends Stamped {
  @Column() label!: string;
}
`,
  'src/entities/Bin.ts': `import { Entity, Column } from 'typeorm';
@Entity({ name: 'bins' })
export class Bin {
  @Column() label!: string;
}
`,
  'src/entities/Label.ts': `export class Label {
  text = '';
}
`,
  'src/depot.ts': `import { Repository } from 'typeorm';
import { Crate } from './entities/Crate';
import { Bin } from './entities/Bin';
import { Label } from './entities/Label';
export class Depot {
  constructor(private crates: Repository<Crate>, private bins: Repository<Bin>, private labels: Repository<Label>) {}
  async keepCrate(crate: Crate) {
    return this.crates.save(crate);
  }
  async keepBin(bin: Bin) {
    return this.bins.save(bin);
  }
  async keepLabel(label: Label) {
    return this.labels.save(label);
  }
  async crate(id: string) {
    return this.crates.findOneBy({ id } as never);
  }
  newBin(label: string) {
    return this.bins.create({ label });
  }
}
`,
};

describe('an entity handed to a function that saves it', () => {
  it('is a late write of a record the caller read, not of one it built', async () => {
    current = project({
      ...files,
      'src/restock.ts': `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Depot } from './depot';
import { Bin } from './entities/Bin';
import { Label } from './entities/Label';
const redlock = new Redlock([new Redis()]);

export async function relabel(depot: Depot, id: string, text: string, bin: Bin) {
  await redlock.using(['crate:' + id], 5000, async () => {
    const crate = await depot.crate(id);
    crate!.label = text;
    await depot.keepCrate(crate!);
    await depot.keepBin(bin);
    const spare = new Bin();
    await depot.keepBin(spare);
    await depot.keepBin(depot.newBin(text));
    await depot.keepLabel(new Label());
  });
}
`,
    });
    const results = await current.lint('src/restock.ts');
    expect(findings(results.get('src/restock.ts'))).toEqual(['12 fencelint/require-fence-condition', '13 fencelint/require-fence-condition']);
  });
});
