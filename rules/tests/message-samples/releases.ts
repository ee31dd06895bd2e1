// Lock releases that name only the lock.
import Redis from 'ioredis';
import { Etcd3 } from 'etcd3';
import { Pool } from 'pg';
import { PrismaClient } from '@prisma/client';
import { WarehouseLeaseAuthority } from '@logistics/warehouse-lease-authority';

const redisConnection = new Redis(process.env.REDIS_URL);
const etcdClient = new Etcd3({ hosts: process.env.ETCD_HOSTS });
const warehouseDatabasePool = new Pool({ connectionString: process.env.WAREHOUSE_DATABASE_URL });
const prisma = new PrismaClient();
const warehouseLeaseAuthority = new WarehouseLeaseAuthority();

export async function releaseInventoryReservationLock(warehouseIdentifier: string, reservationOwnerIdentifier: string): Promise<void> {
  const inventoryReservationLockKey = `lock:inventory-reservation:${warehouseIdentifier}`;
  if ((await redisConnection.get(inventoryReservationLockKey)) === reservationOwnerIdentifier) {
    await redisConnection.del(inventoryReservationLockKey);
  }
}

export async function releaseShipmentLabelPrintingLock(warehouseIdentifier: string): Promise<void> {
  await redisConnection.del(`lock:shipment-label-printing:${warehouseIdentifier}:${process.env.PRINTER_POOL_NAME}`);
}

export async function releaseDockSchedulingLock(dockSchedulingLockName: string): Promise<void> {
  await etcdClient.delete().key(`warehouse/locks/dock-scheduling/${dockSchedulingLockName}`);
}

interface WarehouseLockHandle { lockName: string; ownerId: string; leaseId: string }

export async function releaseStocktakingLock(stocktakingLockHandle: WarehouseLockHandle): Promise<void> {
  await warehouseDatabasePool.query('DELETE FROM warehouse_advisory_locks WHERE lock_name = $1', [stocktakingLockHandle.lockName]);
}

export async function releaseReplenishmentLock(replenishmentLockName: string): Promise<void> {
  await prisma.warehouseLock.delete({ where: { lockName: replenishmentLockName } });
}

export async function rebalanceWarehouseStock(warehouseIdentifier: string): Promise<void> {
  const stockRebalancingLease = await warehouseLeaseAuthority.acquire(`stock-rebalancing:${warehouseIdentifier}`);
  try {
    console.log('rebalancing under token', stockRebalancingLease.fenceToken);
  } finally {
    await warehouseLeaseAuthority.release(`stock-rebalancing:${warehouseIdentifier}`);
  }
}

// A lease kept by hand on the shipment row: checked against the clock, cleared by the row's key only.
export async function lockShipmentForRouting(shipment: { warehouseIdentifier: string; shipmentIdentifier: string; routingStartedAtMilliseconds: number | null }): Promise<void> {
  if (shipment.routingStartedAtMilliseconds !== null && Date.now() - shipment.routingStartedAtMilliseconds < 120_000) throw new Error('shipment is being routed');
  await warehouseDatabasePool.query('UPDATE warehouse_shipments SET routing_started_at_milliseconds = $3 WHERE warehouse_identifier = $1 AND shipment_identifier = $2', [shipment.warehouseIdentifier, shipment.shipmentIdentifier, Date.now()]);
}

export async function releaseShipmentRoutingLease(warehouseIdentifier: string, shipmentIdentifier: string): Promise<void> {
  await warehouseDatabasePool.query('UPDATE warehouse_shipments SET routing_started_at_milliseconds = NULL WHERE warehouse_identifier = $1 AND shipment_identifier = $2', [warehouseIdentifier, shipmentIdentifier]);
}
