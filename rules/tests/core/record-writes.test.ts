/**
 * Active-record writes under a lock: a record an ORM returned, written back through the record
 * itself (`user.save()`, `doc.save()`, `order.remove()`), or through a method of the model class
 * that saves `this`. The ORM sends its own `WHERE id = ...`, so no fence can be added to it: the
 * finding carries no suggestion.
 */
import rule from '../../src/rules/require-fence-condition.js';
import { createRuleTester } from '../rule-tester.js';

const ruleTester = createRuleTester();

const sequelize = `import Redlock from 'redlock';
import Redis from 'ioredis';
import { Model, DataTypes, Sequelize } from 'sequelize';
const redlock = new Redlock([new Redis()]);
const sequelize = new Sequelize('postgres://localhost/app');
`;

const mongoose = `import Redlock from 'redlock';
import Redis from 'ioredis';
import mongoose, { Schema } from 'mongoose';
const redlock = new Redlock([new Redis()]);
`;

const recordError = (line: number) => ({ messageId: 'recordWriteUnfenced' as const, line, suggestions: [] });

ruleTester.run('require-fence-condition (active records)', rule, {
  valid: [
    {
      name: 'an element of a plain array (not a list read) with a save method is no record',
      code: `${sequelize}export async function flushAll(id: string, drafts: { save(): Promise<void> }[]) {
  await redlock.using(['drafts:' + id], 5000, async () => {
    const pending = drafts.filter(Boolean);
    for (const draft of pending) await draft.save();
    const found = pending.find((d) => !!d);
    await found?.save();
  });
}`,
    },
    {
      name: 'a member of a record read without include, and an injected parameter no catalog decorator names, are no records',
      code: `${sequelize}import { Inject } from '@nestjs/common';
class Parcel extends Model {}
export class Loader {
  constructor(@Inject('VOUCHERS') private readonly vouchers: { update(values: object, options: object): Promise<void> }) {}
  async load(day: string) {
    await redlock.using(['load:' + day], 5000, async () => {
      const parcel = await Parcel.findOne({ where: { day } });
      const label = parcel!.label;
      await label.update({ printed: true });
      await this.vouchers.update({ day }, { where: { day } });
    });
  }
}`,
    },
    {
      name: 'a save after the lock is released runs outside the critical section',
      code: `${sequelize}class Account extends Model {}
Account.init({ plan: DataTypes.STRING }, { sequelize });
export async function changePlan(id: string, plan: string) {
  const lock = await redlock.acquire(['account:' + id], 5000);
  const account = await Account.findByPk(id);
  await lock.release();
  account!.plan = plan;
  await account!.save();
}`,
    },
    {
      name: 'an object of unknown origin with a save method is no record',
      code: `${sequelize}export async function flush(id: string, draft: { save(): Promise<void> }) {
  await redlock.using(['draft:' + id], 5000, async () => {
    const local = makeDraft(id);
    await local.save();
    await draft.save();
  });
}
declare function makeDraft(id: string): { save(): Promise<void> };`,
    },
    {
      name: 'Sequelize optimistic locking (version: true) makes save() compare the version',
      code: `${sequelize}class Account extends Model {}
Account.init({ plan: DataTypes.STRING }, { sequelize, version: true });
export async function changePlan(id: string, plan: string) {
  await redlock.using(['account:' + id], 5000, async () => {
    const account = await Account.findByPk(id);
    account!.plan = plan;
    await account!.save();
  });
}`,
    },
    {
      name: 'a Mongoose schema with optimisticConcurrency makes save() compare the version',
      code: `${mongoose}const jobSchema = new Schema({ status: String }, { optimisticConcurrency: true });
const Job = mongoose.model('Job', jobSchema);
export async function finish(id: string) {
  await redlock.using(['job:' + id], 5000, async () => {
    const job = await Job.findById(id);
    job!.status = 'done';
    await job!.save();
  });
}`,
    },
    {
      name: 'a plain Prisma read returns data, not a record with a save method',
      code: `${sequelize}import { PrismaClient } from '@prisma/client';
const prisma = new PrismaClient();
export async function touch(id: string) {
  await redlock.using(['user:' + id], 5000, async () => {
    const user: any = await prisma.user.findUnique({ where: { id } });
    await user.save();
  });
}`,
    },
  ],
  invalid: [
    {
      name: 'TypeORM: rows read as a list, changed and saved back through the repository',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
import { DataSource, In } from 'typeorm';
const redlock = new Redlock([new Redis()]);
declare const db: DataSource;
class Slot { id!: string; state!: string; }
export async function book(ids: string[]) {
  await redlock.using(['slots:' + ids.join(',')], 5000, async () => {
    const repo = db.getRepository(Slot);
    const slots = await repo.findBy({ id: In(ids) });
    slots.forEach((slot) => { slot.state = 'booked'; });
    await repo.save(slots);
  });
}`,
      errors: [recordError(12)],
    },
    {
      name: 'Sequelize and Mongoose: each record of a list read, written back in a loop or a callback',
      code: `${sequelize}class Invoice extends Model {}
Invoice.init({ status: DataTypes.STRING }, { sequelize });
export async function closeAll(customer: string) {
  const lock = await redlock.acquire(['invoices:' + customer], 5000);
  const invoices = await Invoice.findAll({ where: { customer } });
  for (const invoice of invoices) await invoice.update({ status: 'closed' });
  await Promise.all(invoices.map((invoice) => invoice.destroy()));
  await lock.release();
}`,
      errors: [recordError(11), recordError(12)],
    },
    {
      name: 'Sequelize: rows of a list read iterated with entries(), and a record loaded with them through include',
      code: `${sequelize}class Shipment extends Model {}
class Parcel extends Model {}
export async function dispatchDay(day: string) {
  await redlock.using(['dispatch:' + day], 5000, async () => {
    const parcels = await Parcel.findAll({ where: { day }, include: [{ model: Shipment, as: 'shipment' }] });
    for (const [position, parcel] of parcels.entries()) {
      await parcel.update({ position });
      const shipment = parcel.shipment;
      await shipment.update({ state: 'loaded' });
    }
  });
}`,
      errors: [recordError(12), recordError(14)],
    },
    {
      name: 'Sequelize: a record loaded through include, written through the parent without a const of its own',
      code: `${sequelize}class Wallet extends Model {}
class Member extends Model {}
export async function confirm(memberId: string) {
  await redlock.using(['member:' + memberId], 5000, async () => {
    const member = await Member.findByPk(memberId, { include: [{ model: Wallet, as: 'wallet' }] });
    if (!member) return;
    await member.wallet.update({ frozen: false });
    const loose = await Member.findByPk(memberId);
    await loose!.wallet.update({ frozen: true });
  });
}`,
      errors: [recordError(12)],
    },
    {
      name: 'NestJS: a model injected with @InjectModel, typed only as the project class',
      code: `import Redlock from 'redlock';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/sequelize';
import { Voucher } from './voucher.model';
@Injectable()
export class VoucherService {
  constructor(@InjectModel(Voucher) private readonly vouchers: typeof Voucher, private readonly redlock: Redlock) {}
  async redeem(code: string, orderId: string) {
    await this.redlock.using(['voucher:' + code], 5000, async () => {
      const voucher = await this.vouchers.findOne({ where: { code } });
      await voucher!.update({ orderId });
      await this.vouchers.update({ lastOrderId: orderId }, { where: { code } });
    });
  }
}`,
      errors: [recordError(11), { messageId: 'missingFenceNoToken', line: 12 }],
    },
    {
      name: 'Sequelize: a record read under the lock and saved back',
      code: `${sequelize}class Account extends Model {}
Account.init({ plan: DataTypes.STRING }, { sequelize });
export async function changePlan(id: string, plan: string) {
  await redlock.using(['account:' + id], 5000, async () => {
    const account = await Account.findByPk(id);
    account!.plan = plan;
    await account!.save();
  });
}`,
      errors: [recordError(12)],
    },
    {
      name: 'Sequelize: update and destroy on the record (an increment steps a counter: no late write)',
      code: `${sequelize}class Account extends Model {}
Account.init({ plan: DataTypes.STRING }, { sequelize });
export async function settle(id: string) {
  const lock = await redlock.acquire(['account:' + id], 5000);
  const account = await Account.findOne({ where: { id } });
  await account!.update({ plan: 'free' });
  await account!.increment('logins');
  await account!.destroy();
  await lock.release();
}`,
      errors: [recordError(11), recordError(13)],
    },
    {
      name: 'Sequelize: a method of the model class that saves this',
      code: `${sequelize}class User extends Model {
  declare secret: string;
  async rotateSecret() {
    this.secret = Math.random().toString(36);
    await this.save();
  }
}
User.init({ secret: DataTypes.STRING }, { sequelize });
export async function revoke(id: string) {
  await redlock.using(['user:' + id], 5000, async () => {
    const user = await User.findByPk(id);
    await user?.rotateSecret();
  });
}`,
      errors: [recordError(10)],
    },
    {
      name: 'Mongoose: a document read under the lock and saved back',
      code: `${mongoose}const Job = mongoose.model('Job', new Schema({ status: String }));
export async function finish(id: string) {
  await redlock.using(['job:' + id], 5000, async () => {
    const job = await Job.findById(id).exec();
    job!.status = 'done';
    await job!.save();
  });
}`,
      errors: [recordError(10)],
    },
    {
      name: 'Mongoose: a schema method that saves this, called on a document read under the lock',
      code: `${mongoose}const jobSchema = new Schema({ status: String });
jobSchema.methods.finish = async function () {
  this.status = 'done';
  await this.save();
};
const Job = mongoose.model('Job', jobSchema);
export async function finish(id: string) {
  await redlock.using(['job:' + id], 5000, async () => {
    const job = await Job.findById(id);
    await job!.finish();
  });
}`,
      errors: [recordError(8)],
    },
    {
      name: 'TypeORM: an ActiveRecord entity, and an entity saved through its repository',
      code: `import Redlock from 'redlock';
import Redis from 'ioredis';
import { BaseEntity, Entity, Column, DataSource } from 'typeorm';
const redlock = new Redlock([new Redis()]);
const dataSource = new DataSource({ type: 'postgres' });
@Entity()
class Order extends BaseEntity {
  @Column() state!: string;
  async cancel() {
    this.state = 'cancelled';
    await this.save();
  }
}
export async function cancel(id: number) {
  await redlock.using(['order:' + id], 5000, async () => {
    const order = await Order.findOneBy({ id });
    await order!.remove();
    const repo = dataSource.getRepository(Order);
    const again = await repo.findOneBy({ id });
    await repo.save(again!);
  });
}`,
      errors: [recordError(17), recordError(20)],
    },
  ],
});
