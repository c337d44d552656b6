/** The links of the home page at `/`, in order: what its HTTP and browser tests expect. */
export const HOME_PAGE_LINKS = [
  '/graphql',
  '/api/v1/docs',
  '/api/v1/openapi.json',
  '/graphql/schema.graphql',
  '/health/liveness',
  '/health/readiness',
  '/dev/mail',
];
