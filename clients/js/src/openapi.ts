// Generated from docs/openapi.yaml by clients/js/generate_openapi_types.mjs (openapi-typescript): do not edit.
export interface paths {
    "/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a WebSocket session
         * @description A WebSocket upgrade (RFC 6455). After `101`, the server sends `hello` (schema `Hello`),
         *     the resumed messages, then live messages (schema `Envelope`); the client sends `ping`,
         *     `ack`, `subscribe` and `unsubscribe` (schema `ClientMessage`). Close codes and limits:
         *     docs/protocol.md, "WebSocket". Checks in order: method, `Origin`, parameters, client
         *     token, then the upgrade itself (`426` without one).
         */
        get: operations["connectWebSocket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sse": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a Server-Sent Events stream
         * @description `event: hello` first (data: schema `Hello`), then each message as `id: <id>` /
         *     `event: message` / `data: <Message>`, `event: expired`, `: hb` heartbeats, and
         *     `event: reconnect` or `event: close` before the server ends the stream. Resume with
         *     `Last-Event-ID` or `since`. With --compression on and `Accept-Encoding: gzip`, the stream
         *     is gzip (docs/protocol.md, "Server-Sent Events").
         */
        get: operations["connectEventStream"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * CORS preflight for a page of another origin
         * @description A browser sends it before a cross-origin `/sse` with a header that is not
         *     CORS-safelisted (`Authorization`, `Last-Event-ID`). A page whose origin --allowed-origins
         *     lists gets `204` with the grant; any other `403 origin`. An `OPTIONS` without
         *     `Access-Control-Request-Method` is not a preflight: `405` (docs/protocol.md, "Cross-origin
         *     replies (CORS)").
         */
        options: operations["eventStreamPreflight"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Long-poll for messages
         * @description Answered at once when messages after `since` (or sticky, or `rewind`) are owed, or there
         *     is a gap; otherwise held until a message comes (`messages`) or `--poll-timeout` passes
         *     (`reconnect`/`timeout`, still `200`). At most `--max-poll-batch` messages, then
         *     `"more": true`. Poll again with `since` = `last_id` (docs/protocol.md, "Long-poll").
         */
        get: operations["poll"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * CORS preflight for a page of another origin
         * @description A browser sends it before a cross-origin `/poll` with a header that is not
         *     CORS-safelisted (`Authorization`, `Last-Event-ID`). A page whose origin --allowed-origins
         *     lists gets `204` with the grant; any other `403 origin`. An `OPTIONS` without
         *     `Access-Control-Request-Method` is not a preflight: `405` (docs/protocol.md, "Cross-origin
         *     replies (CORS)").
         */
        options: operations["pollPreflight"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health for load balancers
         * @description Answered whatever the `Host` (--allowed-hosts does not apply).
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Counters and gauges of docs/operations.md; no user data, no token.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Node statistics
         * @description Summed over the event loops; every field is described in docs/admin-stats.md.
         */
        get: operations["stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish a message, now or later
         * @description At once (`200`), or with `at`/`delay` in the future scheduled (`202`). No audience is a
         *     broadcast; `channel`, `user` and `users` exclude each other. A field not listed is refused
         *     (`400`, naming it), so a misspelt `channel` never turns a publish into a broadcast.
         *     docs/protocol.md, "Promotions", "Promotions in force", "Paced publish".
         */
        post: operations["publish"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/kick": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disconnect a user
         * @description Live connections get `close`/`kicked`; the user's sessions are dropped too.
         */
        post: operations["kick"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/scheduled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the scheduled publishes */
        get: operations["listScheduled"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/scheduled/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Cancel a scheduled publish */
        delete: operations["cancelScheduled"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The newest messages with their reach */
        get: operations["recentMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A message id (a whole number). */
                id: string;
            };
            cookie?: never;
        };
        /**
         * A message's reach
         * @description While the message is in history; `expired` once its `ttl` passed or it was taken down.
         */
        get: operations["messageReach"];
        put?: never;
        post?: never;
        /**
         * Take a message down
         * @description It expires at once on every node; every live session it was sent to gets `expired`.
         */
        delete: operations["takeDown"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/presence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who is online
         * @description Exactly one of `channel`, `user` and `top` (docs/protocol.md, "Presence").
         */
        get: operations["presence"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish a Pusher event on one or more channels
         * @description The `pusher` SDKs' `trigger` (docs/pusher.md, "HTTP API"). One hub message per channel,
         *     published in the body's order through the node's publish path (with --redis on every
         *     node): Pusher clients of the channel get the event named `name` with `data`, ringcast
         *     clients of a channel of the same name get `data` as a JSON string; the connection
         *     `socket_id` names does not get it. A channel named twice gets it once.
         */
        post: operations["pusherTrigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/batch_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish up to 10 Pusher events
         * @description The SDKs' `triggerBatch`; each event as `POST events` with one `channel`, in the batch's order.
         */
        post: operations["pusherTriggerBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The occupied channels
         * @description Node-wide, and with --redis cluster-wide (both doors' subscribers count).
         */
        get: operations["pusherChannels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/channels/{channel_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One channel's state
         * @description A channel nobody is on is `{"occupied": false}`, not an error.
         */
        get: operations["pusherChannel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/channels/{channel_name}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The members of a presence channel
         * @description Each user once, however many connections it has on the channel (every node with --redis).
         */
        get: operations["pusherChannelUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apps/{app_id}/users/{user_id}/terminate_connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close every Pusher connection signed in as a user
         * @description On every event loop and, with --redis, every node; the SDKs' `terminateUserConnections`. The body (`{}`) is not read.
         */
        post: operations["pusherTerminateUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/demo/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether connects need a client token */
        get: operations["demoTokenInfo"];
        put?: never;
        /** Mint a five-minute client token (demo only) */
        post: operations["mintDemoToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["openapiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The demo storefront */
        get: operations["storefront"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** The demo storefront's headers */
        head: operations["storefrontHead"];
        patch?: never;
        trace?: never;
    };
    "/admin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The admin page
         * @description The page needs no token; the API it calls does.
         */
        get: operations["adminPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ringcast.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The client library as a classic script */
        get: operations["clientScript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ringcast.mjs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The client library as an ES module */
        get: operations["clientModule"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Another file of the pages
         * @description A plain file name (letters, digits, `.`, `_`, `-`, no leading dot) of web/, built into the binary (or read from --web-root).
         */
        get: operations["webFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A user id, session id or channel name. */
        Identifier: string;
        /** @description Whole number with a unit: `500ms`, `90s`, `2m`, `1h` (a bare number is seconds; `0` only for `spread`). */
        Duration: string;
        Error: {
            /** @enum {string} */
            error: "bad_request" | "unauthorized" | "forbidden" | "origin" | "host" | "not_found" | "method_not_allowed" | "too_large" | "too_many" | "overloaded" | "unavailable";
            message: string;
        };
        PublishRequest: {
            /** @description Any JSON value, `null` included; yours, never checked (numbers must fit a double). */
            data: unknown;
            channel?: components["schemas"]["Identifier"];
            user?: components["schemas"]["Identifier"];
            users?: components["schemas"]["Identifier"][];
            /** @description When to publish, Unix ms; now or in the past publishes at once. At most 366 days ahead. */
            at?: number;
            /** @description When to publish, from now (not with `at`). */
            delay?: components["schemas"]["Duration"];
            /** @description How long it stays, from when it is published (more than 0, at most 366 days). */
            ttl?: components["schemas"]["Duration"];
            /** @description Deliveries paced over this window (at most --max-spread). */
            spread?: components["schemas"]["Duration"];
            /** @description In force for clients that connect later, until its ttl passes or it is taken down. */
            sticky?: boolean;
            /** @description The event name Pusher clients see it as (docs/pusher.md); default `message`. Ringcast clients do not see it. */
            event?: string;
        };
        Published: {
            id: number;
            recipients: number;
        };
        Scheduled: {
            scheduled: string;
            at: number;
        };
        ScheduledList: {
            scheduled: {
                scheduled: string;
                at: number;
                /** @description The request as posted, `delay` turned into `at`. */
                request: components["schemas"]["PublishRequest"];
            }[];
        };
        Cancelled: {
            /** @constant */
            cancelled: true;
        };
        TakenDown: {
            /** @constant */
            taken_down: true;
        };
        Reach: {
            id: number;
            /** @description What the admin page names the promotion by: its data's `title` when that is a string, else its data as JSON; cut at 80 characters, with "…" marking a cut. */
            label: string;
            /** @description Unix ms */
            published: number;
            recipients: number;
            delivered: number;
            acked: number;
            expired: boolean;
            spread?: components["schemas"]["Duration"];
            /** @constant */
            sticky?: true;
        };
        MessageList: {
            messages: components["schemas"]["Reach"][];
        };
        KickRequest: {
            user: components["schemas"]["Identifier"];
        };
        Kicked: {
            kicked: number;
        };
        ChannelPresence: {
            channel: components["schemas"]["Identifier"];
            users: number;
            sessions: number;
        };
        UserPresence: {
            user: components["schemas"]["Identifier"];
            online: boolean;
            sessions: number;
        };
        TopChannels: {
            channels: components["schemas"]["ChannelPresence"][];
        };
        DemoTokenInfo: {
            required: boolean;
            mint: boolean;
        };
        DemoToken: {
            token: string;
            /** @description seconds */
            expires_in: number;
        };
        /** @description A counter or gauge, a whole number. */
        Count: number;
        Stats: {
            node: {
                address: string;
                /** @description With --redis, the node id in the cluster; else empty. */
                id: string;
            };
            uptime_ms: number;
            version: string;
            upgrades: number;
            upgrade_reconnects: number;
            threads: number;
            connections: {
                ws: components["schemas"]["Count"];
                sse: components["schemas"]["Count"];
                poll: components["schemas"]["Count"];
                total: components["schemas"]["Count"];
            };
            sessions: {
                total: number;
                connected: number;
                /** @description Connects read on one event loop and handed to the loop that holds their user's sessions. */
                handed: components["schemas"]["Count"];
                refused: {
                    max_sessions: components["schemas"]["Count"];
                    max_sessions_per_user: components["schemas"]["Count"];
                };
            };
            messages: {
                published: components["schemas"]["Count"];
                delivered: components["schemas"]["Count"];
                paced_delivered: components["schemas"]["Count"];
                paced_in_flight: components["schemas"]["Count"];
                acked: components["schemas"]["Count"];
                acks_refused: components["schemas"]["Count"];
                expired: components["schemas"]["Count"];
                expired_notices: components["schemas"]["Count"];
                taken_down: components["schemas"]["Count"];
                sticky_in_force: components["schemas"]["Count"];
                sticky_refused: components["schemas"]["Count"];
                last_id: components["schemas"]["Count"];
                scheduled: components["schemas"]["Count"];
            };
            expirations: {
                idle: components["schemas"]["Count"];
                poll_timeout: components["schemas"]["Count"];
                session_ttl: components["schemas"]["Count"];
                handshake: components["schemas"]["Count"];
                max_age: components["schemas"]["Count"];
                slow: components["schemas"]["Count"];
                kicked: components["schemas"]["Count"];
                replaced: components["schemas"]["Count"];
                expired: components["schemas"]["Count"];
                tls_failed: components["schemas"]["Count"];
                unused: components["schemas"]["Count"];
                message_rate: components["schemas"]["Count"];
                write_timeout: components["schemas"]["Count"];
                displaced: components["schemas"]["Count"];
            };
            refused: {
                origin: components["schemas"]["Count"];
                host: components["schemas"]["Count"];
            };
            sessions_reused: number;
            moves: {
                reconnect: components["schemas"]["Count"];
                activity: components["schemas"]["Count"];
            };
            compression: {
                bytes_written: components["schemas"]["Count"];
                messages_compressed: components["schemas"]["Count"];
                compressed_sent: components["schemas"]["Count"];
                bytes_saved: components["schemas"]["Count"];
            };
            wheel: {
                tick: number;
                tick_ms: number;
                slots: number;
                levels: number;
                armed: number;
                /** @description Armed nodes per slot of levels 0 and 1. */
                occupancy: number[][];
                counters: {
                    scheduled: components["schemas"]["Count"];
                    moved: components["schemas"]["Count"];
                    cancelled: components["schemas"]["Count"];
                    fired: components["schemas"]["Count"];
                    cascaded: components["schemas"]["Count"];
                };
            };
            client_addresses: {
                tracked: components["schemas"]["Count"];
                refused_connections: components["schemas"]["Count"];
                refused_rate: components["schemas"]["Count"];
            };
            /** @description With --hook-url. */
            hooks?: {
                sent: number;
                batches: number;
                retried: number;
                failed: number;
                dropped: number;
                queued: number;
                backend_up: boolean;
            };
            /** @description With --connect-hook. */
            connect_hook?: {
                admitted: components["schemas"]["Count"];
                refused: components["schemas"]["Count"];
                unavailable: components["schemas"]["Count"];
                bad_answers: components["schemas"]["Count"];
                overloaded: components["schemas"]["Count"];
            };
            /** @description With --redis. */
            redis?: {
                up: boolean;
                reconnects: number;
            };
        };
        /** @description The first envelope of a WebSocket or SSE stream. */
        Hello: {
            /** @constant */
            type: "hello";
            /** @description "user/sid" */
            session: string;
            resumed: boolean;
            last_id: number;
            gap: boolean;
            heartbeat_s: number;
            idle_timeout_s: number;
            session_ttl_s: number;
        };
        Message: {
            /** @constant */
            type: "message";
            id: number;
            /** @description "*", the channel, "user:<id>", or "users" */
            channel: string;
            /** @description Unix ms */
            ts: number;
            /** @description Unix ms, with a ttl */
            expires?: number;
            /** @description A paced message: it may arrive after higher ids */
            spread_ms?: number;
            /** @description As published. */
            data: unknown;
        };
        Expired: {
            /** @constant */
            type: "expired";
            id: number;
        };
        Reconnect: {
            /** @constant */
            type: "reconnect";
            /** @enum {unknown} */
            reason: "timeout" | "replaced" | "shutdown" | "rebalance";
            retry_ms: number;
            last_id: number;
        };
        Close: {
            /** @constant */
            type: "close";
            /** @enum {unknown} */
            reason: "idle" | "kicked" | "replaced" | "slow" | "expired";
        };
        ClientError: {
            /** @constant */
            type: "error";
            /** @enum {unknown} */
            code: "bad_request" | "too_large" | "unauthorized" | "not_found" | "overloaded";
            message: string;
        };
        Pong: {
            /** @constant */
            type: "pong";
        };
        /** @description A long-poll reply with messages. */
        Messages: {
            /** @constant */
            type: "messages";
            messages: (components["schemas"]["Message"] | components["schemas"]["Expired"])[];
            last_id: number;
            gap: boolean;
            /** @constant */
            more?: true;
        };
        /** @description What the server sends on a WebSocket or SSE stream. */
        Envelope: components["schemas"]["Hello"] | components["schemas"]["Message"] | components["schemas"]["Expired"] | components["schemas"]["Reconnect"] | components["schemas"]["Close"] | components["schemas"]["ClientError"] | components["schemas"]["Pong"];
        PollReply: components["schemas"]["Messages"] | components["schemas"]["Reconnect"] | components["schemas"]["Close"];
        /** @description What a client sends on a WebSocket (text frames of at most 4 KiB). */
        ClientMessage: {
            /** @constant */
            type: "ping";
        } | {
            /** @constant */
            type: "ack";
            id: number;
        } | {
            /** @enum {unknown} */
            type: "subscribe" | "unsubscribe";
            channels: components["schemas"]["Identifier"][];
        };
        PusherEvent: {
            /** @description 1-200 characters (UTF-16 units), e.g. `App\Events\OrderShipped`. */
            name: string;
            /** @description At most 10 KB, relayed as is. */
            data: string;
            channels?: string[];
            /** @description Instead of `channels`. */
            channel?: string;
            /** @description The connection that must not receive it. */
            socket_id?: string;
            /** @description Comma-separated `subscription_count`, `user_count`. */
            info?: string;
        };
        PusherBatch: {
            batch: {
                channel: string;
                name: string;
                data: string;
                socket_id?: string;
                info?: string;
            }[];
        };
        PusherCounts: {
            subscription_count?: number;
            user_count?: number;
        };
        PusherEmpty: Record<string, never>;
        PusherEventAnswer: components["schemas"]["PusherEmpty"] | {
            channels: {
                [key: string]: components["schemas"]["PusherCounts"];
            };
        };
        PusherBatchAnswer: components["schemas"]["PusherEmpty"] | {
            batch: components["schemas"]["PusherCounts"][];
        };
        PusherChannels: {
            channels: {
                [key: string]: {
                    user_count?: number;
                };
            };
        };
        PusherChannel: {
            occupied: boolean;
            subscription_count?: number;
            user_count?: number;
        };
        PusherUsers: {
            users: {
                id: string;
            }[];
        };
    };
    responses: {
        /** @description A malformed body or parameter (code `bad_request`); the message names it. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such thing (code `not_found`). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A method the path does not take (code `method_not_allowed`). */
        MethodNotAllowed: {
            headers: {
                Allow: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing or wrong admin token (code `unauthorized`), for every path under /admin/. */
        AdminUnauthorized: {
            headers: {
                "WWW-Authenticate": "Bearer";
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description With --redis, Redis cannot be used (code `unavailable`); nothing changed. */
        RedisUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A bad `user`, `sid`, `since`, `channels`, `rewind` or `Last-Event-ID` (code `bad_request`); nothing is created. */
        BadConnect: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description With client tokens required, a missing, invalid or expired token (code `unauthorized`). */
        ClientUnauthorized: {
            headers: {
                "WWW-Authenticate": "Bearer";
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description `origin`: a page of another site (--allowed-origins); `forbidden`: a `user`, `sid` or
         *     `channels` the client token does not allow, or the connect hook refused.
         */
        ConnectForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Beyond --connect-rate-per-ip, or a session beyond --max-sessions-per-user while all are live (code `too_many`). */
        ConnectTooMany: {
            headers: {
                "Retry-After": string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description `overloaded`: --max-connections, --max-sessions or --max-connections-per-ip reached, or
         *     the server drains; `unavailable`: the connect hook did not answer or answered nonsense.
         */
        ConnectUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An HTML page, with the headers of docs/protocol.md, "Pages". */
        Page: {
            headers: {
                "X-Content-Type-Options": components["headers"]["NoSniff"];
                "Content-Security-Policy": string;
                "X-Frame-Options": "DENY";
                "Referrer-Policy": "no-referrer";
                [name: string]: unknown;
            };
            content: {
                "text/html; charset=utf-8": string;
            };
        };
        /** @description The page's headers without its body. */
        PageHead: {
            headers: {
                "X-Content-Type-Options": components["headers"]["NoSniff"];
                [name: string]: unknown;
            };
            content: {
                "text/html; charset=utf-8": unknown;
            };
        };
        /** @description JavaScript, with `X-Content-Type-Options: nosniff`. */
        Script: {
            headers: {
                "X-Content-Type-Options": components["headers"]["NoSniff"];
                [name: string]: unknown;
            };
            content: {
                "text/javascript; charset=utf-8": string;
            };
        };
        /**
         * @description A malformed query string, body, channel or event name, `info` attribute, `socket_id` or
         *     user id, as Pusher answers it: the text says what is wrong.
         */
        PusherBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
        /**
         * @description The request's signature refused: a missing `auth_*` parameter, `Unknown auth_key`, an
         *     `auth_version` other than 1.0, a timestamp over 600 s away, a wrong `body_md5`, or an
         *     `auth_signature` that is not the HMAC of what the text shows was signed (the expected
         *     signature is never told).
         */
        PusherUnauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
        /** @description An `app_id` other than --pusher-app-id, or no such path under it. */
        PusherNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
        /**
         * @description An event's `data` over 10 KB (text, as Pusher), or a body over 256 KiB, refused from its
         *     header by the route table like any other path's (`Error`, code `too_large`).
         */
        PusherTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description With --redis, Redis cannot be used; the text says how much was published. */
        PusherUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/plain": string;
            };
        };
    };
    parameters: {
        /** @description The session id, one per tab (default `0`). */
        Sid: components["schemas"]["Identifier"];
        /** @description Resume after this message id; without it, from now (after the sticky messages in force and `rewind`). */
        Since: string;
        /** @description Comma-separated channel names, at most 32; empty for none. */
        Channels: string;
        /** @description Without `since`, the last N messages (1-100) or those of the last DURATION (`30s`, at most --session-ttl). */
        Rewind: string;
        /** @description A client token (JWT), instead of `Authorization: Bearer`. */
        Token: string;
        /** @description --pusher-app-id; any other id is `404`. */
        PusherAppId: string;
        /** @description 1-164 characters of `[A-Za-z0-9_\-=@,.;]`. */
        PusherChannelName: string;
        /** @description --pusher-key. */
        PusherAuthKey: string;
        /** @description Unix seconds, within 600 s of the server's clock either way. */
        PusherAuthTimestamp: number;
        PusherAuthVersion: "1.0";
        /** @description Hex MD5 of the body; required when there is a body. */
        PusherBodyMd5: string;
        /**
         * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
         *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
         */
        PusherAuthSignature: string;
    };
    requestBodies: never;
    headers: {
        NoSniff: "nosniff";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    connectWebSocket: {
        parameters: {
            query?: {
                /** @description The user (required unless a client token's `sub` names it). */
                user?: components["schemas"]["Identifier"];
                /** @description The session id, one per tab (default `0`). */
                sid?: components["parameters"]["Sid"];
                /** @description Resume after this message id; without it, from now (after the sticky messages in force and `rewind`). */
                since?: components["parameters"]["Since"];
                /** @description Comma-separated channel names, at most 32; empty for none. */
                channels?: components["parameters"]["Channels"];
                /** @description Without `since`, the last N messages (1-100) or those of the last DURATION (`30s`, at most --session-ttl). */
                rewind?: components["parameters"]["Rewind"];
                /** @description A client token (JWT), instead of `Authorization: Bearer`. */
                token?: components["parameters"]["Token"];
            };
            header?: {
                Upgrade?: "websocket";
                Connection?: string;
                /** @description 16 random bytes, base64 (RFC 6455). */
                "Sec-WebSocket-Key"?: string;
                "Sec-WebSocket-Version"?: "13";
                /** @description `permessage-deflate` is accepted as docs/protocol.md, "WebSocket compression", says. */
                "Sec-WebSocket-Extensions"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switched to WebSocket; the first frame is `hello`. */
            101: {
                headers: {
                    Upgrade: string;
                    "Sec-WebSocket-Accept": string;
                    /** @description With --compression on and an offer ringcast can honour. */
                    "Sec-WebSocket-Extensions"?: "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadConnect"];
            401: components["responses"]["ClientUnauthorized"];
            403: components["responses"]["ConnectForbidden"];
            /** @description A GET without a WebSocket upgrade (code `bad_request`). */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["ConnectTooMany"];
            503: components["responses"]["ConnectUnavailable"];
        };
    };
    connectEventStream: {
        parameters: {
            query?: {
                /** @description The user (required unless a client token's `sub` names it). */
                user?: components["schemas"]["Identifier"];
                /** @description The session id, one per tab (default `0`). */
                sid?: components["parameters"]["Sid"];
                /** @description Resume after this message id; without it, from now (after the sticky messages in force and `rewind`). */
                since?: components["parameters"]["Since"];
                /** @description Comma-separated channel names, at most 32; empty for none. */
                channels?: components["parameters"]["Channels"];
                /** @description Without `since`, the last N messages (1-100) or those of the last DURATION (`30s`, at most --session-ttl). */
                rewind?: components["parameters"]["Rewind"];
                /** @description A client token (JWT), instead of `Authorization: Bearer`. */
                token?: components["parameters"]["Token"];
            };
            header?: {
                /** @description The browser's resume point (as `since`; `since` wins when both are given). */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream; it ends when the connection does. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadConnect"];
            401: components["responses"]["ClientUnauthorized"];
            403: components["responses"]["ConnectForbidden"];
            429: components["responses"]["ConnectTooMany"];
            503: components["responses"]["ConnectUnavailable"];
        };
    };
    eventStreamPreflight: {
        parameters: {
            query?: never;
            header: {
                Origin: string;
                "Access-Control-Request-Method": "GET";
                "Access-Control-Request-Headers"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page may make the request (no body). */
            204: {
                headers: {
                    "Access-Control-Allow-Origin": string;
                    "Access-Control-Allow-Methods": "GET";
                    "Access-Control-Allow-Headers": string;
                    "Access-Control-Max-Age": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["ConnectForbidden"];
            /** @description Not a preflight (no `Access-Control-Request-Method`). */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    poll: {
        parameters: {
            query?: {
                /** @description The user (required unless a client token's `sub` names it). */
                user?: components["schemas"]["Identifier"];
                /** @description The session id, one per tab (default `0`). */
                sid?: components["parameters"]["Sid"];
                /** @description Resume after this message id. */
                since?: string;
                /** @description Comma-separated channel names, at most 32; empty for none. */
                channels?: components["parameters"]["Channels"];
                /** @description Without `since`, the last N messages (1-100) or those of the last DURATION (`30s`, at most --session-ttl). */
                rewind?: components["parameters"]["Rewind"];
                /** @description A client token (JWT), instead of `Authorization: Bearer`. */
                token?: components["parameters"]["Token"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Messages, or a notice to come back. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PollReply"];
                };
            };
            400: components["responses"]["BadConnect"];
            401: components["responses"]["ClientUnauthorized"];
            403: components["responses"]["ConnectForbidden"];
            429: components["responses"]["ConnectTooMany"];
            503: components["responses"]["ConnectUnavailable"];
        };
    };
    pollPreflight: {
        parameters: {
            query?: never;
            header: {
                Origin: string;
                "Access-Control-Request-Method": "GET";
                "Access-Control-Request-Headers"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page may make the request (no body). */
            204: {
                headers: {
                    "Access-Control-Allow-Origin": string;
                    "Access-Control-Allow-Methods": "GET";
                    "Access-Control-Allow-Headers": string;
                    "Access-Control-Max-Age": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["ConnectForbidden"];
            /** @description Not a preflight (no `Access-Control-Request-Method`). */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The node serves clients and may be sent new ones. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ok";
                };
            };
            405: components["responses"]["MethodNotAllowed"];
            /**
             * @description With --redis, Redis cannot be used (the message names the address and the cause), or
             *     the node has not yet read the cluster's history and promotions in force.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    stats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The statistics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            401: components["responses"]["AdminUnauthorized"];
        };
    };
    publish: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PublishRequest"];
            };
        };
        responses: {
            /** @description Published; `recipients` is the live sessions it was queued to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Published"];
                };
            };
            /** @description Scheduled for `at` (a `delay` is turned into the `at` it meant). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scheduled"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            /** @description Sticky while --max-sticky are in force, or scheduled while --max-scheduled wait (code `too_many`); nothing is published. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["RedisUnavailable"];
        };
    };
    kick: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KickRequest"];
            };
        };
        responses: {
            /** @description How many live connections were closed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Kicked"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
        };
    };
    listScheduled: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Earliest `at` first, each request as posted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledList"];
                };
            };
            401: components["responses"]["AdminUnauthorized"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    cancelScheduled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `scheduled` id a `202` gave. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description It will not be published. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Cancelled"];
                };
            };
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    recentMessages: {
        parameters: {
            query?: {
                /** @description How many (1-100, default 10). Any other parameter is refused. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first, each as `GET /admin/messages/{id}` gives it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    messageReach: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A message id (a whole number). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Its reach. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reach"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    takeDown: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A message id (a whole number). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Taken down. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TakenDown"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    presence: {
        parameters: {
            query?: {
                channel?: components["schemas"]["Identifier"];
                user?: components["schemas"]["Identifier"];
                top?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures asked for. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelPresence"] | components["schemas"]["UserPresence"] | components["schemas"]["TopChannels"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            503: components["responses"]["RedisUnavailable"];
        };
    };
    pusherTrigger: {
        parameters: {
            query: {
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /** @description Hex MD5 of the body; required when there is a body. */
                body_md5?: components["parameters"]["PusherBodyMd5"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PusherEvent"];
            };
        };
        responses: {
            /** @description Published; with `info`, the counts of each channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherEventAnswer"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
            413: components["responses"]["PusherTooLarge"];
            503: components["responses"]["PusherUnavailable"];
        };
    };
    pusherTriggerBatch: {
        parameters: {
            query: {
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /** @description Hex MD5 of the body; required when there is a body. */
                body_md5?: components["parameters"]["PusherBodyMd5"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PusherBatch"];
            };
        };
        responses: {
            /** @description Published; if an event asks for `info`, the counts of each event's channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherBatchAnswer"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
            413: components["responses"]["PusherTooLarge"];
            503: components["responses"]["PusherUnavailable"];
        };
    };
    pusherChannels: {
        parameters: {
            query: {
                /** @description Only channels whose name starts with it. */
                filter_by_prefix?: string;
                /** @description `user_count`, with `filter_by_prefix=presence-` only. */
                info?: string;
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each occupied channel the prefix matches. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherChannels"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
            503: components["responses"]["PusherUnavailable"];
        };
    };
    pusherChannel: {
        parameters: {
            query: {
                /** @description Comma-separated `subscription_count`, `user_count` (presence channels only). */
                info?: string;
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
                /** @description 1-164 characters of `[A-Za-z0-9_\-=@,.;]`. */
                channel_name: components["parameters"]["PusherChannelName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Whether anyone is subscribed, and the counts asked for. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherChannel"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
            503: components["responses"]["PusherUnavailable"];
        };
    };
    pusherChannelUsers: {
        parameters: {
            query: {
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
                /** @description 1-164 characters of `[A-Za-z0-9_\-=@,.;]`. */
                channel_name: components["parameters"]["PusherChannelName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user ids. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherUsers"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
            503: components["responses"]["PusherUnavailable"];
        };
    };
    pusherTerminateUser: {
        parameters: {
            query: {
                /** @description --pusher-key. */
                auth_key: components["parameters"]["PusherAuthKey"];
                /** @description Unix seconds, within 600 s of the server's clock either way. */
                auth_timestamp: components["parameters"]["PusherAuthTimestamp"];
                auth_version: components["parameters"]["PusherAuthVersion"];
                /** @description Hex MD5 of the body; required when there is a body. */
                body_md5?: components["parameters"]["PusherBodyMd5"];
                /**
                 * @description Hex HMAC-SHA256 with --pusher-secret of `METHOD\n/apps/{app_id}/...\n` and every other
                 *     query parameter as `key=value`, sorted by key, joined by `&`, values unescaped.
                 */
                auth_signature: components["parameters"]["PusherAuthSignature"];
            };
            header?: never;
            path: {
                /** @description --pusher-app-id; any other id is `404`. */
                app_id: components["parameters"]["PusherAppId"];
                /** @description The `id` the connections signed in with (`pusher:signin`). */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Their connections are being closed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PusherEmpty"];
                };
            };
            400: components["responses"]["PusherBadRequest"];
            401: components["responses"]["PusherUnauthorized"];
            404: components["responses"]["PusherNotFound"];
        };
    };
    demoTokenInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `required`: connects need a client token; `mint`: POST mints one (--demo with --client-secret). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DemoTokenInfo"];
                };
            };
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    mintDemoToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    user: components["schemas"]["Identifier"];
                };
            };
        };
        responses: {
            /** @description A client token for `user`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DemoToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
        };
    };
    openapiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description docs/openapi.yaml as built into the binary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": string;
                };
            };
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    storefront: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Page"];
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    storefrontHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PageHead"];
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    adminPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Page"];
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    clientScript: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Script"];
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    clientModule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["Script"];
            405: components["responses"]["MethodNotAllowed"];
        };
    };
    webFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, with `X-Content-Type-Options: nosniff`. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["NoSniff"];
                    [name: string]: unknown;
                };
                content: {
                    "text/css; charset=utf-8": string;
                    "text/javascript; charset=utf-8": string;
                    "text/html; charset=utf-8": string;
                };
            };
            404: components["responses"]["NotFound"];
        };
    };
}
