export function createResource() {
    throw new Error('connection refused: store.internal:6379');
}
//# sourceMappingURL=throwing-module.js.map