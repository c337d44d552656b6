// Jest takes the tear-down as the module's default export.
export { teardown as default } from './postgres-template.setup';
