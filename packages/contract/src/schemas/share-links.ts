/** Share links: one vehicle's live position for someone without an account (docs/share-links.md). */
import { Type, type Static } from 'typebox';

/** A link lives at most a week, five minutes at least; a day unless asked. */
export const SHARE_LINK_SECONDS = Object.freeze({ min: 300, max: 7 * 24 * 3600, default: 24 * 3600 });
export const MAX_SHARE_LINK_LABEL = 80;
export const MAX_SHARE_LINKS_PAGE = 200;
export const DEFAULT_SHARE_LINKS_PAGE = 50;

export const ShareLinkRequest = Type.Object({
  vin: Type.String({ description: "One of the company's vehicles" }),
  expires_in: Type.Optional(Type.Integer({
    minimum: SHARE_LINK_SECONDS.min, maximum: SHARE_LINK_SECONDS.max,
    description: `Seconds until the link stops working, ${SHARE_LINK_SECONDS.min} to ${SHARE_LINK_SECONDS.max} (7 days), default ${SHARE_LINK_SECONDS.default}`,
  })),
  label: Type.Optional(Type.String({ maxLength: MAX_SHARE_LINK_LABEL, description: 'Shown above the map to whoever opens the link (an order number, a driver\'s first name); nothing else about the vehicle is' })),
}, { additionalProperties: false });
export type ShareLinkRequest = Static<typeof ShareLinkRequest>;

export const SHARE_LINK_STATES = Object.freeze(['active', 'expired', 'revoked'] as const);

export const ShareLink = Type.Object({
  id: Type.String({ description: 'The link\'s id (not its secret): revoke with it' }),
  vin: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  state: Type.String({ enum: [...SHARE_LINK_STATES] }),
  created_at: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  expires_at: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  created_by: Type.Object({
    kind: Type.String({ enum: ['application', 'user'] }),
    id: Type.String({ description: "An application's client id or a person's e-mail" }),
  }),
});
export type ShareLink = Static<typeof ShareLink>;

export const CreatedShareLink = Type.Intersect([ShareLink, Type.Object({
  url: Type.String({ description: 'The link to hand out: shown in this answer only (the service keeps a hash of its secret)' }),
})]);
export type CreatedShareLink = Static<typeof CreatedShareLink>;

export const ShareLinksQuery = Type.Object({
  vin: Type.Optional(Type.String({ description: "Only this vehicle's links" })),
  state: Type.Optional(Type.String({ enum: [...SHARE_LINK_STATES], description: 'Only links in this state' })),
  before: Type.Optional(Type.String({ description: 'A next_cursor of an earlier page: the links created before it' })),
  limit: Type.Optional(Type.String({ description: `1 to ${MAX_SHARE_LINKS_PAGE}, default ${DEFAULT_SHARE_LINKS_PAGE}` })),
});
export type ShareLinksQuery = Static<typeof ShareLinksQuery>;

export const ShareLinksPage = Type.Object({
  data: Type.Array(ShareLink, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for older links; null when there are none' }),
});
export type ShareLinksPage = Static<typeof ShareLinksPage>;

export const ShareLinkParams = Type.Object({ id: Type.String() });

/** What the link's page reads: the label, the link's end and the newest position, nothing else of the vehicle. */
export const SharedPosition = Type.Object({
  label: Type.Union([Type.String(), Type.Null()]),
  expires_at: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  position: Type.Union([Type.Null(), Type.Object({
    latitude: Type.Number(),
    longitude: Type.Number(),
    recorded_at: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  })], { description: 'The newest recorded fix of the last 7 days; null while there is none, or when the company may no longer read positions' }),
});
export type SharedPosition = Static<typeof SharedPosition>;
