/** The starting document: what the page does, and operations to run once signed in. */
export const defaultQuery = (
  endpoint: string,
): string => `# GraphiQL for the Meeting API. Queries and mutations go
# over HTTP to ${endpoint}, subscriptions over a WebSocket on
# ${endpoint} (protocol graphql-transport-ws).
#
# Sign in with the bar above (e-mail or account, and password):
# every request then carries your access token, subscriptions
# included. A token of your own in the Headers tab
# ({"Authorization": "Bearer …"}) takes its place.
#
# Run Me, or subscribe to your invitations and keep this tab
# open while someone invites you to a meeting.

query Me {
  me {
    id
    name
    account
  }
}

subscription MyInvitations {
  invitationReceived {
    id
    meeting {
      title
    }
  }
}
`;
