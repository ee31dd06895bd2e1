/**
 * Log lines go to the client's output channel (`window/logMessage`). A failure that repeats on
 * every keystroke (a throwing rule, a broken config) is logged once per distinct key, so the
 * channel stays readable.
 */
export class ServerLog {
    connection;
    seen = new Set();
    constructor(connection) {
        this.connection = connection;
    }
    info(message) {
        this.connection.console.info(message);
    }
    error(message) {
        this.connection.console.error(message);
    }
    /** Logs `message` the first time `key` is seen; returns whether it logged. */
    once(key, message, level = 'error') {
        if (this.seen.has(key))
            return false;
        this.seen.add(key);
        if (level === 'error')
            this.error(message);
        else
            this.info(message);
        return true;
    }
}
//# sourceMappingURL=server-log.js.map