// Jest takes the tear-down as the module's default export.
export { teardown as default } from './pgbouncer.setup';
