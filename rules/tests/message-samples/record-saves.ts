// Subscription renewals: the subscription is read through its Sequelize model and saved back under the lease.
import Redlock from 'redlock';
import Redis from 'ioredis';
import { DataTypes, Model, Sequelize } from 'sequelize';

const subscriptionDatabase = new Sequelize(process.env.SUBSCRIPTIONS_DATABASE_URL ?? '');
const distributedRenewalCoordinator = new Redlock([new Redis(process.env.REDIS_URL)]);

class CustomerSubscriptionRecord extends Model {
  declare renewalStatus: string;
}
CustomerSubscriptionRecord.init({ renewalStatus: DataTypes.STRING }, { sequelize: subscriptionDatabase });

export async function markSubscriptionRenewalCompleted(customerSubscriptionIdentifier: string): Promise<void> {
  await distributedRenewalCoordinator.using([`subscription-renewal:${customerSubscriptionIdentifier}`], 30_000, async () => {
    const customerSubscriptionRecord = await CustomerSubscriptionRecord.findByPk(customerSubscriptionIdentifier);
    if (!customerSubscriptionRecord) return;
    customerSubscriptionRecord.renewalStatus = 'completed';
    await customerSubscriptionRecord.save();
  });
}
