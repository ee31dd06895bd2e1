// Document publishing: each write trusts a check made one step earlier.
import Redlock from 'redlock';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { DocumentLeaseServiceClient } from '@publishing/document-lease-service';

const publishingDatabasePool = new Pool({ connectionString: process.env.PUBLISHING_DATABASE_URL });
const redlock = new Redlock([new Redis(process.env.REDIS_URL)]);
const documentLeases = new DocumentLeaseServiceClient({ endpoint: process.env.DOCUMENT_LEASE_SERVICE_URL });

export async function publishRenderedDocumentRevision(documentIdentifier: string, renderedDocumentHtml: string): Promise<void> {
  const documentPublishingLease = await documentLeases.acquire(`document:${documentIdentifier}`, { ttlMs: 10_000 });
  try {
    const { rows } = await publishingDatabasePool.query('SELECT last_published_fence_token FROM published_documents WHERE id = $1', [documentIdentifier]);
    const lastPublishedFenceToken = rows[0]?.last_published_fence_token ?? 0;
    if (lastPublishedFenceToken >= documentPublishingLease.fenceToken) throw new Error('a newer revision is already published');
    await publishingDatabasePool.query('UPDATE published_documents SET rendered_html = $1, last_published_fence_token = $2 WHERE id = $3', [
      renderedDocumentHtml,
      documentPublishingLease.fenceToken,
      documentIdentifier,
    ]);
  } finally {
    await documentLeases.release(documentPublishingLease);
  }
}

export async function refreshDocumentSearchSnippet(documentIdentifier: string, searchSnippetText: string): Promise<void> {
  let searchSnippetLock = await redlock.acquire([`document-search-snippet:${documentIdentifier}`], 5_000);
  try {
    if (searchSnippetLock.expiration <= Date.now() + 250 /* leave room for the round trip to the database */) {
      throw new Error(`search snippet lock for ${documentIdentifier} expired before the write`);
    }
    await publishingDatabasePool.query('UPDATE published_documents SET search_snippet = $2 WHERE id = $1', [documentIdentifier, searchSnippetText]);
    searchSnippetLock = await searchSnippetLock.extend(5_000);
    await publishingDatabasePool.query('UPDATE published_documents SET search_snippet_refreshed_at = now() WHERE id = $1', [documentIdentifier]);
  } finally {
    await searchSnippetLock.release();
  }
}
