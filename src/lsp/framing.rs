//! A guard in front of the LSP transport. tower-lsp-server stops reading after one message
//! it cannot decode (tokio-util ends a framed stream at its first error), so a single
//! malformed message would kill the server. Frames are checked here first: well-formed
//! JSON-RPC passes through; anything else is answered with a JSON-RPC error and dropped
//! (-32700 for a body that is not JSON or a frame without a usable `Content-Length`, -32600
//! for JSON that is not a JSON-RPC 2.0 message, with its `id` when it has a valid one), and
//! reading resumes at the next `Content-Length` header, also when the leftover bytes of a
//! message whose length was wrong run into it on one line.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Larger messages are refused, so a bogus length cannot make the server buffer gigabytes.
const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Header lines are read at most this long; longer runs of bytes without a newline (the
/// leftovers of a message with a wrong length) are read in pieces, never buffered whole.
const MAX_HEADER_LINE: u64 = 64 * 1024;

fn parse_error(message: &str) -> Vec<u8> {
    error_reply(serde_json::Value::Null, -32700, message)
}

fn error_reply(id: serde_json::Value, code: i64, message: &str) -> Vec<u8> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    frame(body.to_string().as_bytes())
}

/// The answer to a body that is not a JSON-RPC 2.0 message: a parse error (-32700) when it
/// is not JSON, else an invalid request (-32600) with its `id` when that is a valid one, so
/// a client waiting on that id hears back.
fn rejection(body: &[u8]) -> Vec<u8> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return parse_error("Parse error: not a JSON-RPC 2.0 message");
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    error_reply(id, -32600, "Invalid request: not a JSON-RPC 2.0 request, notification or response")
}

/// Whether tower-lsp-server can decode the body: a JSON-RPC 2.0 request, notification or response.
fn is_jsonrpc(body: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(body) else { return false };
    let version_ok = map.get("jsonrpc").and_then(|v| v.as_str()) == Some("2.0");
    let id_ok = map.get("id").is_none_or(|id| id.is_null() || id.is_string() || id.is_i64() || id.is_u64());
    let is_call = map.get("method").is_some_and(|m| m.is_string());
    let is_response = map.contains_key("id") && (map.contains_key("result") || map.contains_key("error"));
    version_ok && id_ok && (is_call || is_response)
}

/// Read one header block (skipping stray blank lines before it). `None` at the end of
/// input; otherwise the `Content-Length`, if there was a valid one. Header bytes that are
/// not UTF-8 are garbage like any other, never a reason to stop reading.
async fn read_headers(reader: &mut (impl AsyncBufReadExt + Unpin)) -> Option<Option<usize>> {
    let mut length = None;
    let mut saw_header = false;
    loop {
        let mut raw = Vec::new();
        match (&mut *reader).take(MAX_HEADER_LINE).read_until(b'\n', &mut raw).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&raw);
        let mut trimmed = line.trim();
        if trimmed.is_empty() {
            if saw_header {
                return Some(length);
            }
            continue;
        }
        saw_header = true;
        // After a message whose length was missing or wrong, its leftover bytes run into the
        // next message's header on one line: resume at the header.
        if let Some(at) = trimmed.to_ascii_lowercase().find("content-length:") {
            trimmed = &trimmed[at..];
        }
        if let Some((name, value)) = trimmed.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok();
        }
    }
}

/// Read framed messages from `input`; forward good ones to `to_server`, answer bad ones on `replies`.
pub async fn filter_input(input: impl AsyncRead + Unpin, mut to_server: impl AsyncWrite + Unpin, replies: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(input);
    loop {
        let Some(length) = read_headers(&mut reader).await else { return };
        let Some(length) = length.filter(|&l| l <= MAX_MESSAGE_BYTES) else {
            let _ = replies.send(parse_error("missing or invalid Content-Length header")).await;
            continue;
        };
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        if is_jsonrpc(&body) {
            if to_server.write_all(&frame(&body)).await.is_err() || to_server.flush().await.is_err() {
                return;
            }
        } else {
            let _ = replies.send(rejection(&body)).await;
        }
    }
}

/// Copy the server's framed output to `replies`, one whole message at a time.
pub async fn forward_output(server_out: impl AsyncRead + Unpin, replies: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(server_out);
    loop {
        let Some(length) = read_headers(&mut reader).await else { return };
        let mut body = vec![0; length.unwrap_or(0)];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        if replies.send(frame(&body)).await.is_err() {
            return;
        }
    }
}

/// Write whole messages to `output` in the order they arrive.
pub async fn write_output(mut output: impl AsyncWrite + Unpin, mut replies: mpsc::Receiver<Vec<u8>>) {
    while let Some(message) = replies.recv().await {
        if output.write_all(&message).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{filter_input, is_jsonrpc, rejection};

    /// Run the guard over `input`; what it forwards and what it answers itself.
    async fn guard(input: &[u8]) -> (String, Vec<serde_json::Value>) {
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        let mut forwarded = Vec::new();
        filter_input(input, &mut forwarded, tx).await;
        let mut replies = Vec::new();
        while let Ok(reply) = rx.try_recv() {
            let text = String::from_utf8(reply).unwrap();
            replies.push(serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap());
        }
        (String::from_utf8(forwarded).unwrap(), replies)
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn resynchronises_after_bad_lengths_and_garbage() {
        let good = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        // A missing length: the body runs into the next header on one line.
        let input = format!("Content-Type: x\r\n\r\n{good}{}", framed(good));
        let (forwarded, replies) = guard(input.as_bytes()).await;
        assert_eq!(forwarded, framed(good));
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["error"]["code"], -32700);
        // A length too short, a huge one, a negative one, and bytes that are not UTF-8.
        let mut input = format!("Content-Length: 10\r\n\r\n{good}");
        input.push_str(&framed(good));
        input.push_str(&format!("Content-Length: 99999999999999999999999\r\n\r\n{good}"));
        input.push_str(&format!("Content-Length: -5\r\n\r\n{good}"));
        let mut bytes = input.into_bytes();
        bytes.extend_from_slice(b"\xff\xfe garbage \xc3\r\n");
        bytes.extend_from_slice(framed(good).as_bytes());
        let (forwarded, replies) = guard(&bytes).await;
        assert_eq!(forwarded, framed(good).repeat(2));
        assert!(replies.iter().all(|r| r["error"]["code"] == -32700 && r["id"].is_null()), "{replies:?}");
    }

    #[test]
    fn invalid_requests_keep_their_id() {
        let reply = |body: &str| {
            let text = String::from_utf8(rejection(body.as_bytes())).unwrap();
            serde_json::from_str::<serde_json::Value>(text.split_once("\r\n\r\n").unwrap().1).unwrap()
        };
        assert_eq!(reply(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#)["id"], 7);
        assert_eq!(reply(r#"{"jsonrpc":"2.0","id":"a","method":5}"#)["error"]["code"], -32600);
        assert!(reply(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#)["id"].is_null());
        assert_eq!(reply("[1, 2]")["error"]["code"], -32600);
        assert_eq!(reply("{not json")["error"]["code"], -32700);
    }

    #[test]
    fn recognises_jsonrpc() {
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#));
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","id":"a","result":null}"#));
        assert!(!is_jsonrpc(b"{not json"));
        assert!(!is_jsonrpc(br#"{"id":1,"method":"x"}"#));
        assert!(!is_jsonrpc(br#"[1,2]"#));
        assert!(!is_jsonrpc(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#));
    }
}
