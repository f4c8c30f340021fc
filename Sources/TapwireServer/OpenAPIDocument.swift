import TapwireCore
import TapwireReport

/// The OpenAPI 3 document of the HTTP API, served at `GET /openapi.json` and checked in as
/// docs/openapi.json (a test keeps the two identical). Embedded as text so the binary serves it
/// outside the checkout. Per-event problems are 200 with `rejected` entries, so event elements
/// are documented but not constrained: any element gets an answer in `rejected`, never a 400.
public enum OpenAPIDocument {
    public static let route = Route("GET", "/openapi.json", access: .open) { _ in
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=300")], body: bytes)
    }

    /// The document, compact.
    public static let bytes: [UInt8] = (try? JSONParser().parse(text).serializedBytes()) ?? Array(text.utf8)

    public static var json: JSONValue { (try? JSONParser().parse(bytes)) ?? .null }

    /// The limits the collector enforces by default, so the schema cannot drift from them.
    static let limits = IngestLimits()
    static let errorCodes = APIErrorCode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    static let rejectionCodes = EventRejection.Code.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    static let findingKinds = FindingFamilies.kinds.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")

    static func errors(_ statuses: [Int]) -> String {
        statuses.map { status -> String in
            switch status {
            case 401: return ##""401": {"$ref": "#/components/responses/Unauthorized"}"##
            case 405: return ##""405": {"$ref": "#/components/responses/MethodNotAllowed"}"##
            case 429, 503: return ##""\##(status)": {"$ref": "#/components/responses/RetryLater"}"##
            default: return ##""\##(status)": {"$ref": "#/components/responses/Error"}"##
            }
        }.joined(separator: ",\n")
    }

    /// A filter parameter per report dimension (`ReportDimension`, their one declaration).
    static let dimensionParameters = ReportDimension.allCases.map { dimension in
        var parameter: [(String, JSONValue)] = [("name", .string(dimension.flag)), ("in", "query"), ("schema", .object([("type", "string")]))]
        if let description = dimension.apiDescription { parameter.append(("description", .string(description))) }
        return JSONValue.object(parameter).serialized(pretty: false)
    }.joined(separator: ",\n      ")

    static let reportParameters = #"""
    [
      {"name": "app", "in": "query", "schema": {"type": "string"}, "description": "Must be the key's own app (403 otherwise)."},
      {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv", "html", "md", "markdown", "table", "text"]}},
      {"name": "since", "in": "query", "schema": {"type": "string"}, "description": "Days or hours back from now: 7d, 12h. Not with from."},
      {"name": "from", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601 start of the range."},
      {"name": "to", "in": "query", "schema": {"type": "string"}, "description": "ISO 8601 end of the range."},
      {"name": "tz", "in": "query", "schema": {"type": "string"}, "description": "IANA time zone of the day buckets, such as Europe/Bucharest."},
      \#(dimensionParameters),
      {"name": "by", "in": "query", "schema": {"type": "string", "enum": [\#(ReportDimension.allCases.map { "\"\($0.flag)\"" }.joined(separator: ", "))]}},
      {"name": "min-sample", "in": "query", "schema": {"type": "integer", "minimum": 0}, "description": "Delivered notifications per side below which the rich vs text-only comparison says insufficient data."},
      {"name": "target-difference", "in": "query", "schema": {"type": "number", "minimum": -100, "maximum": 100, "not": {"enum": [0]}}, "description": "The rich vs text-only difference, in percentage points, whose days to detect the report gives (default: the adjusted difference observed, or 2 when it is not significant)."}
    ]
    """#

    static let reportContent = #"""
    {
      "description": "The report in the asked format (JSON schema version 3, CSV, HTML, Markdown or a text table).",
      "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/EngagementReport"}},
        "text/csv": {"schema": {"type": "string"}},
        "text/html": {"schema": {"type": "string"}},
        "text/markdown": {"schema": {"type": "string"}},
        "text/plain": {"schema": {"type": "string"}}
      }
    }
    """#

    static let text = #"""
    {
      "openapi": "3.0.3",
      "info": {
        "title": "Tapwire collector",
        "version": "1.0.0",
        "description": "iOS notification telemetry: batches of delivered, response, sent and conversion events, and category manifests. A 200 on POST /v1/batch means the accepted events are committed to PostgreSQL; every other status means nothing was stored, so the client keeps its events and retries (429 and 503 after Retry-After). Whole-request errors have the body {\"error\": {\"code\", \"message\"}} with a stable code."
      },
      "paths": {
        "/v1/batch": {
          "post": {
            "operationId": "postBatch",
            "summary": "Store a batch of events (exactly once per eventId and app)",
            "description": "Bodies may be sent with Content-Encoding gzip, deflate (zlib or raw) or none. Content-Length over \#(limits.maxBodyBytes >> 20) MiB gets 413 before the body is read; a body inflating past \#(limits.maxDecompressedBytes >> 20) MiB gets 413. At most \#(limits.maxEventsPerBatch) events and \#(limits.maxEventBytes >> 10) KiB per event. Invalid events are rejected one by one in `rejected`; the others are stored.",
            "security": [{"writeKey": []}],
            "requestBody": {
              "required": true,
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Batch"}}}
            },
            "responses": {
              "200": {
                "description": "The accepted events are durably stored; duplicates were stored before; rejected ones never will be.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchResult"}}}
              },
              \#(errors([400, 401, 403, 405, 408, 413, 414, 415, 429, 500, 503]))
            }
          }
        },
        "/v1/categories": {
          "post": {
            "operationId": "postCategories",
            "summary": "Store the app's registered category manifest for one app version",
            "security": [{"writeKey": []}],
            "requestBody": {
              "required": true,
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Manifest"}}}
            },
            "responses": {
              "200": {
                "description": "Stored, or already stored with the same content.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ManifestResult"}}}
              },
              \#(errors([400, 401, 403, 405, 408, 413, 414, 415, 500, 503]))
            }
          }
        },
        "/v1/reports/engagement": {
          "get": {
            "operationId": "engagementReport",
            "summary": "The engagement report of the key's app: per category, per action, rich vs text-only with intervals",
            "security": [{"readKey": []}],
            "parameters": \#(reportParameters),
            "responses": {
              "200": \#(reportContent),
              \#(errors([400, 401, 403, 405, 414, 500, 503]))
            }
          }
        },
        "/report": {
          "get": {
            "operationId": "reportPage",
            "summary": "The same report, as a self-contained HTML page unless `format` says otherwise",
            "security": [{"readKey": []}],
            "parameters": \#(reportParameters),
            "responses": {
              "200": \#(reportContent),
              \#(errors([400, 401, 403, 405, 414, 500, 503]))
            }
          }
        },
        "/v1/reports/mismatches": {
          "get": {
            "operationId": "mismatchReport",
            "summary": "Category mismatches of the key's app: unknown categories, case-only and near misses, unregistered actions",
            "security": [{"readKey": []}],
            "parameters": [
              {"name": "app", "in": "query", "schema": {"type": "string"}, "description": "Must be the key's own app (403 otherwise)."},
              {"name": "since", "in": "query", "schema": {"type": "string"}, "description": "A duration back from now (30m, 24h, 7d, 2w) or an ISO 8601 time; default 7d before until."},
              {"name": "until", "in": "query", "schema": {"type": "string"}, "description": "Same forms; default now. The window is at most 400 days."},
              {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv", "html"]}},
              {"name": "minSeverity", "in": "query", "schema": {"type": "string", "enum": ["info", "warning", "error"]}}
            ],
            "responses": {
              "200": {
                "description": "The findings.",
                "content": {"application/json": {"schema": {"type": "object"}}, "text/csv": {"schema": {"type": "string"}}, "text/html": {"schema": {"type": "string"}}}
              },
              \#(errors([400, 401, 403, 405, 414, 500, 503]))
            }
          }
        },
        "/v1/findings": {
          "get": {
            "operationId": "findings",
            "summary": "Every finding of the key's app as of an instant: category mismatches over a window and the release-regression check",
            "description": "What `tapwire alerts` prints. `at` replays: only events before it count; the release-regression check's looks are whole hours, so an instant within an hour shows the look at that hour's start. Without `at`, the current hour's look the collectors stored is shown when it applies (lookSource says which); `fresh=true` computes it again.",
            "security": [{"readKey": []}],
            "parameters": [
              {"name": "app", "in": "query", "schema": {"type": "string"}, "description": "Must be the key's own app (403 otherwise)."},
              {"name": "at", "in": "query", "schema": {"type": "string"}, "description": "The instant evaluated: a duration back from now (30m, 24h, 7d) or an ISO 8601 time; default now, at most a day ahead."},
              {"name": "fresh", "in": "query", "schema": {"type": "boolean"}, "description": "true: compute the current release-regression look again from the rollups as they are now, instead of the one the collectors stored for the hour (which does not count events that arrived after it was taken). Not with at, which always computes."},
              {"name": "since", "in": "query", "schema": {"type": "string"}, "description": "Start of the mismatch window: a duration back from at or an ISO 8601 time; default 24h before at. The window is at most 400 days."},
              {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "csv", "html", "table"]}},
              {"name": "minSeverity", "in": "query", "schema": {"type": "string", "enum": ["info", "warning", "error", "critical"]}}
            ],
            "responses": {
              "200": {
                "description": "The findings, most severe first, and every release-regression series with its status.",
                "content": {
                  "application/json": {"schema": {"$ref": "#/components/schemas/Findings"}},
                  "text/csv": {"schema": {"type": "string"}},
                  "text/html": {"schema": {"type": "string"}},
                  "text/plain": {"schema": {"type": "string"}}
                }
              },
              \#(errors([400, 401, 403, 405, 414, 500, 503]))
            }
          }
        },
        "/v1/reports/regressions": {
          "get": {
            "operationId": "regressionReport",
            "summary": "The release-regression check of the key's app: the newest app version against the ones before it, every category and outcome",
            "description": "docs/regressions.md: strata of platform × UTC day over the hours both sides delivered, an anytime-valid interval (Howard et al. 2021) at the family's 5%, a finding when it lies wholly below the minimum drop. `at` replays the hourly check as it stood then; without it the collectors' stored look of the current hour is shown when it applies, and `fresh=true` computes it again.",
            "security": [{"readKey": []}],
            "parameters": [
              {"name": "app", "in": "query", "schema": {"type": "string"}, "description": "Must be the key's own app (403 otherwise)."},
              {"name": "at", "in": "query", "schema": {"type": "string"}, "description": "The instant evaluated: a duration back from now (30m, 24h, 7d) or an ISO 8601 time; default now, at most a day ahead."},
              {"name": "fresh", "in": "query", "schema": {"type": "boolean"}, "description": "true: compute the current release-regression look again from the rollups as they are now, instead of the one the collectors stored for the hour (which does not count events that arrived after it was taken). Not with at, which always computes."},
              {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["json", "html", "table"]}}
            ],
            "responses": {
              "200": {
                "description": "The check.",
                "content": {
                  "application/json": {"schema": {"$ref": "#/components/schemas/RegressionCheck"}},
                  "text/html": {"schema": {"type": "string"}},
                  "text/plain": {"schema": {"type": "string"}}
                }
              },
              \#(errors([400, 401, 403, 405, 414, 500, 503]))
            }
          }
        },
        "/healthz": {
          "get": {
            "operationId": "health",
            "summary": "200 while the process is up",
            "responses": {
              "200": {"description": "Up.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}},
              \#(errors([405, 414]))
            }
          }
        },
        "/readyz": {
          "get": {
            "operationId": "ready",
            "summary": "200 when the database answers and the writers are connected",
            "responses": {
              "200": {"description": "Ready.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Ready"}}}},
              \#(errors([405, 414, 503]))
            }
          }
        },
        "/metrics": {
          "get": {
            "operationId": "metrics",
            "summary": "Prometheus text format",
            "responses": {
              "200": {"description": "Metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}},
              \#(errors([405, 414]))
            }
          }
        },
        "/v1/devices/forget": {
          "post": {
            "operationId": "forgetDevice",
            "summary": "Forget an install id: remove every stored event of it and every row that holds it; the rollups (anonymous counts) stay",
            "description": "The install id travels in the body, never in the path, so proxies' access logs do not record it; the collector logs only the first 16 hex digits of its SHA-256. Idempotent: forgetting an id again removes nothing more.",
            "security": [{"adminKey": []}],
            "requestBody": {
              "required": true,
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ForgetDevice"}}}
            },
            "responses": {
              "200": {
                "description": "Removed, in one transaction: what each table held.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ForgetDeviceResult"}}}
              },
              \#(errors([400, 401, 403, 405, 408, 413, 414, 415, 500, 503]))
            }
          }
        },
        "/openapi.json": {
          "get": {
            "operationId": "openapi",
            "summary": "This document",
            "responses": {
              "200": {"description": "The OpenAPI 3 document.", "content": {"application/json": {"schema": {"type": "object"}}}},
              \#(errors([405, 414]))
            }
          }
        }
      },
      "components": {
        "securitySchemes": {
          "writeKey": {"type": "http", "scheme": "basic", "description": "The app's write key (tww_…) as the username, empty password. It ships in apps: it can only post, and only to its own app."},
          "readKey": {"type": "http", "scheme": "basic", "description": "The app's read key (twr_…) as the username, empty password. Reads reports of its own app only."},
          "adminKey": {"type": "http", "scheme": "basic", "description": "The app's admin key (twa_…, made by `tapwire keys rotate APP --kind admin`) as the username, empty password. Deletes data of its own app only; cannot post or read reports."}
        },
        "responses": {
          "Error": {
            "description": "Nothing was stored.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "Unauthorized": {
            "description": "No key, not a key, or an unknown, revoked or expired key.",
            "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "MethodNotAllowed": {
            "description": "Wrong method; Allow lists the right ones.",
            "headers": {"Allow": {"required": true, "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "RetryLater": {
            "description": "Rate limited (429), or the database is unavailable or the write queue is full (503). Nothing was stored: keep the events and retry after Retry-After seconds.",
            "headers": {"Retry-After": {"required": true, "schema": {"type": "integer", "minimum": 1}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          }
        },
        "schemas": {
          "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
              "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                  "code": {"type": "string", "enum": [\#(errorCodes)]},
                  "message": {"type": "string", "description": "For people; never holds a key's secret."}
                }
              }
            }
          },
          "EngagementReport": {
            "type": "object",
            "description": "The report as JSON: its whole shape is schemas/engagement-report.v3.json (JSON Schema 2020-12) and docs/reports.md says what each figure means. Listed here: the version and what version 3 added, conversions (docs/outcomes.md). Rates and differences are fractions.",
            "required": ["schemaVersion", "categories", "overall", "attribution", "conversions"],
            "properties": {
              "schemaVersion": {"type": "integer", "enum": [3]},
              "categories": {"type": "array", "items": {"$ref": "#/components/schemas/ReportCategory"}},
              "overall": {"$ref": "#/components/schemas/ReportCategory"},
              "attribution": {
                "type": "object",
                "description": "The windows the conversions were attributed with (the app's).",
                "properties": {
                  "directWindow": {"type": "integer", "nullable": true, "description": "Seconds: a conversion within it after an engaged response (an open or an action but the dismiss) on the same device is direct."},
                  "influenceWindow": {"type": "integer", "nullable": true, "description": "Seconds: otherwise, within it after a delivery with no engaged response since, influenced."},
                  "valueInterval": {"type": "string", "description": "The method of each valuePerDeliveredCI95."},
                  "conversionsOmitted": {"type": "string", "nullable": true, "description": "Why the report has no conversions: a filter or by on a dimension other than campaign or platform, which a credited notification does not keep."}
                }
              },
              "conversions": {
                "type": "array",
                "description": "Every conversion of the range by its own time, name and currency: direct + influenced + unattributed = conversions.",
                "items": {
                  "type": "object",
                  "properties": {
                    "name": {"type": "string"}, "currency": {"type": "string", "description": "ISO 4217; empty for conversions without a value."},
                    "direct": {"type": "integer"}, "influenced": {"type": "integer"}, "unattributed": {"type": "integer"},
                    "conversions": {"type": "integer"}, "value": {"type": "number", "nullable": true},
                    "directValue": {"type": "number", "nullable": true}, "influencedValue": {"type": "number", "nullable": true},
                    "unattributedValue": {"type": "number", "nullable": true}
                  }
                }
              },
              "holdouts": {
                "type": "array",
                "description": "Every campaign with an assignment in the range (docs/holdouts.md): treated against held out. Listed here: what withholds an estimate, and the daily looks.",
                "items": {
                  "type": "object",
                  "properties": {
                    "campaign": {"type": "string"},
                    "withheld": {"type": "string", "nullable": true, "description": "Why difference, ci95, relativeLift, anytimeValid and valuePerDevice are null: a sample-ratio mismatch, assignments stating different shares, or too few devices or conversions in an arm."},
                    "valuePerDevice": {
                      "type": "object",
                      "nullable": true,
                      "description": "Each arm's mean value over its assigned devices, and their difference with a 95% interval for skewed revenue (MOVER over skew-adjusted means).",
                      "properties": {
                        "treated": {"type": "number"}, "heldOut": {"type": "number"}, "difference": {"type": "number"},
                        "ci95": {"$ref": "#/components/schemas/Interval"},
                        "withheld": {"type": "string", "nullable": true, "description": "Why ci95 is null though the values vary: the smaller arm has fewer devices than devicesNeeded, which values this skewed need for the interval to cover 95% (more than 28 + 25·G1², Cochran's rule as Sugden, Smith & Jones 2000 refine it; docs/statistics-outcomes.md)."},
                        "skewness": {"type": "number", "nullable": true, "description": "G1 of every assigned device's value, both arms together."},
                        "devicesNeeded": {"type": "integer", "nullable": true, "description": "The devices each arm needs for ci95 to be shown; null when no count would do."}
                      }
                    },
                    "looks": {
                      "type": "array",
                      "description": "Each UTC day from the campaign's first assignment to the range's end, cumulative: what the HTML chart draws.",
                      "items": {
                        "type": "object",
                        "properties": {
                          "day": {"type": "string", "format": "date"},
                          "treated": {"type": "object", "description": "devices, converted, rate up to that day"},
                          "heldOut": {"type": "object", "description": "devices, converted, rate up to that day"},
                          "difference": {"type": "number", "nullable": true},
                          "anytimeValid": {"$ref": "#/components/schemas/Interval"}
                        }
                      }
                    }
                  }
                }
              }
            }
          },
          "ReportCategory": {
            "type": "object",
            "description": "One category (category null: all of them). Besides the engagement figures (schemas/engagement-report.v3.json), what its notifications led to.",
            "properties": {
              "category": {"type": "string", "nullable": true},
              "conversions": {
                "type": "array",
                "items": {
                  "type": "object",
                  "properties": {
                    "name": {"type": "string"}, "currency": {"type": "string"},
                    "direct": {"type": "integer", "description": "Conversions credited to a tap of these notifications."},
                    "influenced": {"type": "integer", "description": "Conversions credited to a delivery without a tap."},
                    "converted": {"type": "integer", "description": "Notifications with at least one conversion of the name."},
                    "delivered": {"type": "integer"},
                    "rate": {"type": "number", "nullable": true, "description": "converted / delivered."},
                    "ci95": {"$ref": "#/components/schemas/Interval"},
                    "value": {"type": "number", "nullable": true},
                    "valuePerDelivered": {"type": "number", "nullable": true, "description": "value / delivered; null without a currency."},
                    "valuePerDeliveredCI95": {"$ref": "#/components/schemas/Interval"},
                    "valuePerDeliveredWithheld": {"type": "string", "nullable": true, "description": "Why valuePerDeliveredCI95 is null though the values vary (valuePerDelivered stays): fewer delivered than valueDeliveredNeeded, which values this skewed need for the interval to cover 95% (more than 28 + 25·G1², Cochran's rule as Sugden, Smith & Jones 2000 refine it; docs/statistics-outcomes.md)."},
                    "valueSkewness": {"type": "number", "nullable": true, "description": "The G1 the interval's rule read: the larger of the value's over this cell's delivered notifications and over every delivered notification of the report (the same name and currency); null without a currency or a spread of values."},
                    "valueDeliveredNeeded": {"type": "integer", "nullable": true, "description": "The delivered notifications valuePerDeliveredCI95 needs to be shown; null where valueSkewness is, or no count would do."}
                  }
                }
              },
              "directConversionsByAction": {
                "type": "object",
                "description": "Action identifier (com.apple.UNNotificationDefaultActionIdentifier for an open) to conversion name to direct conversions.",
                "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}
              },
              "conversionUplift": {
                "type": "array",
                "description": "Rich vs text-only on each conversion name, with the shape and method of `uplift` (pooled, Mantel–Haenszel adjusted over the same strata, confounded, anytime-valid), converted notifications in place of engaged ones.",
                "items": {
                  "type": "object",
                  "properties": {
                    "name": {"type": "string"}, "currency": {"type": "string"},
                    "rich": {"type": "object", "description": "delivered, converted, rate, ci95"},
                    "textOnly": {"type": "object", "description": "delivered, converted, rate, ci95"},
                    "uplift": {"type": "object", "description": "As the category's uplift."}
                  }
                }
              }
            }
          },
          "Interval": {
            "type": "object",
            "nullable": true,
            "properties": {"lower": {"type": "number"}, "upper": {"type": "number"}}
          },
          "Batch": {
            "type": "object",
            "required": ["events"],
            "properties": {
              "sentAt": {"type": "string", "nullable": true, "description": "ISO 8601, the device clock when the batch was sent; corrects clock skew: event time = receivedAt - (sentAt - timestamp)."},
              "context": {"$ref": "#/components/schemas/Context"},
              "events": {"type": "array", "maxItems": \#(limits.maxEventsPerBatch), "items": {"$ref": "#/components/schemas/EventElement"}}
            }
          },
          "Context": {
            "type": "object",
            "nullable": true,
            "description": "Shared by every event of the batch. Limits are in UTF-8 bytes (appVersion, build, osVersion 64; platform 32; sdk, deviceId 128); no NUL characters.",
            "properties": {
              "appVersion": {"type": "string", "nullable": true, "maxLength": \#(limits.maxVersionBytes / 4), "pattern": "^[^\\u0000]*$"},
              "build": {"type": "string", "nullable": true, "maxLength": \#(limits.maxVersionBytes / 4), "pattern": "^[^\\u0000]*$"},
              "platform": {"type": "string", "nullable": true, "maxLength": \#(limits.maxPlatformBytes / 4), "pattern": "^[^\\u0000]*$"},
              "osVersion": {"type": "string", "nullable": true, "maxLength": \#(limits.maxVersionBytes / 4), "pattern": "^[^\\u0000]*$"},
              "sdk": {"type": "string", "nullable": true, "maxLength": \#(limits.maxTagBytes / 4), "pattern": "^[^\\u0000]*$"},
              "deviceId": {"type": "string", "nullable": true, "maxLength": \#(limits.maxTagBytes / 4), "pattern": "^[^\\u0000]*$"}
            }
          },
          "EventElement": {
            "description": "An Event (see that schema). Any other element is answered in `rejected` with its index and a reason, and does not fail the batch, so no element is refused by this document."
          },
          "Event": {
            "type": "object",
            "required": ["eventId", "type", "timestamp"],
            "properties": {
              "eventId": {"type": "string", "format": "uuid", "description": "The dedup key, per app, forever. Send UUIDv7."},
              "type": {"type": "string", "enum": ["delivered", "response", "sent", "conversion", "assignment"], "description": "conversion: an outcome the app counts (a purchase, a signup), attributed to the notifications of its device (docs/outcomes.md). assignment: a device treated or held out of a campaign by the sender (docs/holdouts.md)."},
              "timestamp": {"type": "string", "format": "date-time"},
              "notificationId": {"type": "string", "maxLength": \#(limits.maxIdentifierBytes)},
              "category": {"type": "string", "maxLength": \#(limits.maxIdentifierBytes)},
              "actionIdentifier": {"type": "string", "maxLength": \#(limits.maxIdentifierBytes), "description": "Required on a response, not allowed on other types."},
              "userTextLength": {"type": "integer", "minimum": 0, "maximum": \#(limits.maxUserTextLength), "description": "Only on a response; the reply's text is never sent."},
              "hasMedia": {"type": "boolean"},
              "mediaTypes": {"type": "array", "maxItems": \#(limits.maxMediaTypesPerEvent), "items": {"type": "string", "enum": ["image", "audio", "video", "other"]}},
              "mediaRequested": {"type": "boolean"},
              "categoryRegistered": {"type": "boolean"},
              "campaign": {"type": "string", "maxLength": \#(limits.maxIdentifierBytes)},
              "variant": {"type": "string", "maxLength": \#(limits.maxIdentifierBytes)},
              "deliveredAt": {"type": "string", "format": "date-time"},
              "name": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxIdentifierBytes), "description": "Required on a conversion, not allowed on other types: what was converted (purchase, signup)."},
              "value": {"type": "number", "minimum": 0, "maximum": \#(Int64(IngestLimits.maxConversionValue)), "description": "Only on a conversion, and then with currency. A refund is a conversion of its own name."},
              "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 code of the value; only with a value."},
              "deviceId": {"type": "string", "maxLength": \#(limits.maxTagBytes / 4), "pattern": "^[^\\u0000]*$", "description": "This event's pseudonymous install id when it is not the context's (a backend posting for many devices)."},
              "arm": {"type": "string", "enum": ["treated", "held_out"], "description": "Required on an assignment (docs/holdouts.md), with campaign, holdoutShare and an install id; not allowed on other types."},
              "holdoutShare": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": true, "description": "On an assignment: the share of devices the sender meant to hold out."}
            }
          },
          "ForgetDevice": {
            "type": "object",
            "required": ["deviceId"],
            "additionalProperties": false,
            "properties": {
              "deviceId": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxTagBytes / 4), "pattern": "^[^\\u0000]*$", "description": "The install id, as the app's batches carried it."}
            }
          },
          "ForgetDeviceResult": {
            "type": "object",
            "required": ["device", "removed"],
            "properties": {
              "device": {"type": "string", "description": "The first 16 hex digits of the SHA-256 of the install id: what the logs name."},
              "removed": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}, "description": "Rows removed (for attribution_pending and holdout_pending: queue rows rewritten), by table."}
            }
          },
          "BatchResult": {
            "type": "object",
            "required": ["accepted", "duplicates", "rejected"],
            "properties": {
              "accepted": {"type": "integer", "minimum": 0},
              "duplicates": {"type": "integer", "minimum": 0},
              "rejected": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": ["index", "eventId", "code", "reason"],
                  "properties": {
                    "index": {"type": "integer", "minimum": 0},
                    "eventId": {"type": "string", "nullable": true},
                    "code": {"type": "string", "enum": [\#(rejectionCodes)]},
                    "reason": {"type": "string"}
                  }
                }
              }
            }
          },
          "Manifest": {
            "type": "object",
            "required": ["appVersion", "categories"],
            "properties": {
              "appVersion": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxVersionBytes / 4), "pattern": "^[^\\u0000]+$"},
              "categories": {"type": "array", "maxItems": \#(limits.maxCategories), "items": {"$ref": "#/components/schemas/Category"}}
            }
          },
          "Category": {
            "type": "object",
            "required": ["identifier"],
            "properties": {
              "identifier": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]+$"},
              "title": {"type": "string", "nullable": true, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]*$"},
              "options": {"type": "array", "nullable": true, "maxItems": \#(limits.maxOptions), "items": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]+$"}},
              "actions": {"type": "array", "nullable": true, "maxItems": \#(limits.maxActionsPerCategory), "items": {"$ref": "#/components/schemas/Action"}}
            }
          },
          "Action": {
            "type": "object",
            "required": ["identifier"],
            "properties": {
              "identifier": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]+$"},
              "title": {"type": "string", "nullable": true, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]*$"},
              "options": {"type": "array", "nullable": true, "maxItems": \#(limits.maxOptions), "items": {"type": "string", "minLength": 1, "maxLength": \#(limits.maxIdentifierBytes / 4), "pattern": "^[^\\u0000]+$"}},
              "textInput": {"type": "boolean", "nullable": true}
            }
          },
          "ManifestResult": {
            "type": "object",
            "required": ["manifestId", "contentHash", "created", "categories"],
            "properties": {
              "manifestId": {"type": "integer"},
              "contentHash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
              "created": {"type": "boolean"},
              "categories": {"type": "integer", "minimum": 0}
            }
          },
          "Findings": {
            "type": "object",
            "required": ["app", "asOf", "findings", "mismatches", "regressions"],
            "properties": {
              "app": {"type": "string"},
              "asOf": {"type": "string"},
              "findings": {"type": "array", "items": {"$ref": "#/components/schemas/Finding"}},
              "mismatches": {"type": "object", "required": ["since", "until"], "properties": {"since": {"type": "string"}, "until": {"type": "string"}}},
              "regressions": {"$ref": "#/components/schemas/RegressionCheck"}
            }
          },
          "Finding": {
            "type": "object",
            "description": "A finding of either family. Category mismatches: kind, severity, category, action, count, appVersions, platforms, firstSeen, lastSeen, suggestion, message, events (docs/mismatches.md). Release regressions: the properties of RegressionFinding. Manifest changes: kind, severity, category, action, outcome, appVersion, registeredBy, message.",
            "required": ["kind", "severity", "category", "message"],
            "properties": {
              "kind": {"type": "string", "enum": [\#(findingKinds)]},
              "severity": {"type": "string", "enum": ["info", "warning", "error"]},
              "category": {"type": "string"},
              "action": {"type": "string", "nullable": true},
              "message": {"type": "string"}
            }
          },
          "RegressionFinding": {
            "type": "object",
            "description": "A flagged series (kind engagement_regression). Rates and differences are fractions (-0.05: five points down). The figures are those of the look that detected it; `latest` holds the newest look's.",
            "required": ["kind", "severity", "category", "action", "outcome", "appVersion", "baselineVersion", "candidateRate", "candidateDelivered", "baselineRate", "baselineDelivered", "difference", "differenceLower", "differenceUpper", "pooledDifference", "detectedAt", "message"],
            "properties": {
              "kind": {"type": "string", "enum": ["engagement_regression"]},
              "severity": {"type": "string", "enum": ["info", "warning", "error"]},
              "category": {"type": "string"},
              "action": {"type": "string", "nullable": true, "description": "The action identifier: com.apple.UNNotificationDefaultActionIdentifier for opens, com.apple.UNNotificationDismissActionIdentifier for dismissals; null for text replies."},
              "outcome": {"type": "string", "enum": ["opens", "action", "textReplies", "dismissals"]},
              "appVersion": {"type": "string", "description": "The candidate: the newest app version."},
              "baselineVersion": {"type": "string", "description": "The newest version pooled into the baseline."},
              "baselineVersions": {"type": "array", "items": {"type": "string"}},
              "candidateRate": {"$ref": "#/components/schemas/Fraction"},
              "candidateDelivered": {"type": "integer", "minimum": 0},
              "candidateResponses": {"type": "integer", "minimum": 0},
              "baselineRate": {"$ref": "#/components/schemas/Fraction"},
              "baselineDelivered": {"type": "integer", "minimum": 0},
              "baselineResponses": {"type": "integer", "minimum": 0},
              "difference": {"$ref": "#/components/schemas/Fraction"},
              "differenceLower": {"$ref": "#/components/schemas/Fraction"},
              "differenceUpper": {"$ref": "#/components/schemas/Fraction"},
              "pooledDifference": {"$ref": "#/components/schemas/Fraction"},
              "minimumDrop": {"$ref": "#/components/schemas/Fraction"},
              "detectedAt": {"type": "string"},
              "latest": {"type": "object"},
              "message": {"type": "string"}
            }
          },
          "Fraction": {"type": "number", "nullable": true},
          "RegressionCheck": {
            "type": "object",
            "required": ["asOf", "looksEnd", "lookSource", "lookTakenAt", "daysRead", "status"],
            "properties": {
              "asOf": {"type": "string"},
              "looksEnd": {"type": "string", "description": "The end of the last look: a whole hour, or the end of the candidate's horizon."},
              "lookSource": {"type": "string", "enum": ["stored", "computed"], "description": "stored: the hour's look as the collectors took it (it does not count events that arrived after lookTakenAt); computed: computed for this request."},
              "lookTakenAt": {"type": "string", "nullable": true, "description": "When the stored look was taken; null for a computed one."},
              "daysRead": {"type": "object", "nullable": true, "properties": {"from": {"type": "string"}, "to": {"type": "string"}}},
              "status": {"type": "string", "enum": ["compared", "no_comparison"]},
              "reason": {"type": "string", "description": "Why there is no comparison (no_comparison)."},
              "candidateVersion": {"type": "string"},
              "baselineVersions": {"type": "array", "items": {"type": "string"}},
              "candidateManifestMissing": {"type": "boolean"},
              "seriesInFamily": {"type": "integer", "minimum": 0},
              "alphaPerSeries": {"type": "number"},
              "findings": {"type": "array", "items": {"$ref": "#/components/schemas/Finding"}},
              "series": {"type": "array", "items": {"$ref": "#/components/schemas/RegressionSeries"}}
            }
          },
          "RegressionSeries": {
            "type": "object",
            "required": ["category", "outcome", "action", "status", "baselineVersions"],
            "properties": {
              "category": {"type": "string"},
              "outcome": {"type": "string", "enum": ["opens", "action", "textReplies", "dismissals"]},
              "action": {"type": "string", "nullable": true},
              "status": {"type": "string", "enum": ["flagged", "fine", "not_enough_data", "exempt"]},
              "baselineVersions": {"type": "array", "items": {"type": "string"}},
              "reason": {"type": "string", "enum": ["no_candidate_deliveries", "no_shared_hours", "below_minimum_deliveries", "expected_count_below_minimum", "new_category", "new_outcome", "manifest_change"]},
              "detail": {"type": "string"},
              "candidateDelivered": {"type": "integer", "minimum": 0},
              "baselineDelivered": {"type": "integer", "minimum": 0},
              "detectedAt": {"type": "string"},
              "lookAt": {"type": "string"},
              "difference": {"$ref": "#/components/schemas/Fraction"},
              "differenceLower": {"$ref": "#/components/schemas/Fraction"},
              "differenceUpper": {"$ref": "#/components/schemas/Fraction"},
              "pooledDifference": {"$ref": "#/components/schemas/Fraction"},
              "rulesOutMinimumDrop": {"type": "boolean"}
            }
          },
          "Status": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string"}}},
          "Ready": {
            "type": "object",
            "required": ["status", "queuedEvents"],
            "properties": {"status": {"type": "string"}, "queuedEvents": {"type": "integer", "minimum": 0}}
          }
        }
      }
    }
    """#
}
