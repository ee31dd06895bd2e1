import type { AdapterContext, ResourceAdapter } from 'fencelint-checker';
export declare const operationIds = true;
/** The store never looks at leases or time: the exploration may treat its writes as independent of them. */
export declare const resourceIndependentOfAuthority = true;
export declare function createResource(context: AdapterContext): ResourceAdapter;
