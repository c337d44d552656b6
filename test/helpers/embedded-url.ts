/** The environment variable through which the embedded project's server reaches the tests. */
export const EMBEDDED_URL_VARIABLE = 'MEETINGS_TEST_EMBEDDED_URL';
