//! A guard in front of the LSP transport. tower-lsp-server stops reading after one message
//! it cannot decode (tokio-util ends a framed stream at its first error), so a single
//! malformed message would kill the server. Frames are checked here first: well-formed
//! JSON-RPC passes through; anything else is answered with a JSON-RPC parse error (-32700)
//! and dropped, and reading resumes at the next `Content-Length` header.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Larger messages are refused, so a bogus length cannot make the server buffer gigabytes.
const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn parse_error(message: &str) -> Vec<u8> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": message}});
    frame(body.to_string().as_bytes())
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
/// input; otherwise the `Content-Length`, if there was a valid one.
async fn read_headers(reader: &mut (impl AsyncBufReadExt + Unpin)) -> Option<Option<usize>> {
    let mut length = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if saw_header {
                return Some(length);
            }
            continue;
        }
        saw_header = true;
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
            let _ = replies.send(parse_error("Parse error: not a JSON-RPC 2.0 message")).await;
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
    use super::is_jsonrpc;

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
