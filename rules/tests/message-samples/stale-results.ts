// Fenced writes whose refusal never reaches the code, with the long names real services use.
import { Pool } from 'pg';
import mysql from 'mysql2/promise';
import { MongoClient } from 'mongodb';
import pgPromise from 'pg-promise';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { WarehouseLeaseAuthority } from '@fulfilment/warehouse-lease-authority';

const fulfilmentDatabasePool = new Pool({ connectionString: process.env.FULFILMENT_DATABASE_URL });
const inventoryMysqlPool = mysql.createPool({ uri: process.env.INVENTORY_MYSQL_URL });
const shipmentDocuments = new MongoClient(process.env.SHIPMENT_MONGO_URL ?? '').db('fulfilment').collection('shipments');
const reportingDatabase = pgPromise()(process.env.REPORTING_DATABASE_URL ?? '');
const parcelTrackingTable = DynamoDBDocumentClient.from({} as never);
const warehouseLeaseAuthority = new WarehouseLeaseAuthority();

declare function publishShipmentUpdatedEvent(shipmentIdentifier: string): Promise<void>;

export async function recordParcelWeightForShipment(shipmentIdentifier: string, parcelWeightInGrams: number) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`shipment:${shipmentIdentifier}`);
  const updateResult = await inventoryMysqlPool.execute(
    'UPDATE shipment_parcels SET weight_grams = ?, fence_token = ? WHERE shipment_id = ? AND fence_token < ?',
    [parcelWeightInGrams, fenceToken, shipmentIdentifier, fenceToken],
  );
  if (updateResult.affectedRows === 0) throw new Error('stale shipment write');
}

export async function markShipmentDispatchedFromWarehouse(shipmentIdentifier: string, dispatchedByOperator: string) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`shipment:${shipmentIdentifier}`);
  const dispatchResult = await fulfilmentDatabasePool.query(
    'UPDATE shipments SET status = $1, dispatched_by = $2, fence_token = $3 WHERE id = $4 AND fence_token < $3',
    ['dispatched', dispatchedByOperator, fenceToken, shipmentIdentifier],
  );
  if (dispatchResult.rowCount === 0) console.warn('shipment dispatch not recorded', shipmentIdentifier);
  await publishShipmentUpdatedEvent(shipmentIdentifier);
}

export async function attachCarrierLabelToShipment(shipmentIdentifier: string, carrierLabelUrl: string) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`shipment:${shipmentIdentifier}`);
  const labelUpdate = await shipmentDocuments.updateOne({ _id: shipmentIdentifier, fenceToken: { $lt: fenceToken } }, { $set: { carrierLabelUrl, fenceToken } });
  if (!labelUpdate.acknowledged) throw new Error('carrier label not stored');
}

export async function refreshParcelTrackingStatus(parcelIdentifier: string, trackingStatus: string) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`parcel:${parcelIdentifier}`);
  try {
    await parcelTrackingTable.send(new UpdateCommand({
      TableName: 'parcel-tracking',
      Key: { parcelIdentifier },
      UpdateExpression: 'SET trackingStatus = :s, fence_token = :t',
      ConditionExpression: 'fence_token < :t',
      ExpressionAttributeValues: { ':s': trackingStatus, ':t': fenceToken },
    }));
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
  return { trackingStatusSaved: true };
}

export async function archiveShipmentReportingRow(shipmentIdentifier: string) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`shipment:${shipmentIdentifier}`);
  await reportingDatabase.none('UPDATE shipment_reports SET archived = true, fence_token = $1 WHERE shipment_id = $2 AND fence_token < $1', [fenceToken, shipmentIdentifier]);
}

async function writeShipmentCustomsDeclaration(shipmentIdentifier: string, customsDeclaration: string, fenceToken: bigint) {
  return fulfilmentDatabasePool.query(
    'UPDATE shipments SET customs_declaration = $1, fence_token = $2 WHERE id = $3 AND fence_token < $2',
    [customsDeclaration, fenceToken, shipmentIdentifier],
  );
}

export async function submitShipmentCustomsDeclaration(shipmentIdentifier: string, customsDeclaration: string) {
  const { fenceToken } = await warehouseLeaseAuthority.acquire(`shipment:${shipmentIdentifier}`);
  await writeShipmentCustomsDeclaration(shipmentIdentifier, customsDeclaration, fenceToken);
}
