//! The LSP framing guard on arbitrary bytes: it must never panic or hang, must forward only
//! well-formed frames (so that re-reading its output forwards the same frames and answers
//! nothing), and the output forwarder must pass those frames on whole.

#![no_main]

use std::sync::OnceLock;

use kernlint::lsp::framing::{filter_input, forward_output};
use libfuzzer_sys::fuzz_target;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    })
}

/// Run the guard over `input`: (what it forwards to the server, its error replies).
async fn guard(input: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let (tx, mut rx) = mpsc::channel(16);
    let mut forwarded = Vec::new();
    let drain = async {
        let mut replies = Vec::new();
        while let Some(r) = rx.recv().await {
            replies.push(r);
        }
        replies
    };
    let (_, replies) = tokio::join!(filter_input(input, &mut forwarded, tx), drain);
    (forwarded, replies)
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(async {
        let (forwarded, replies) = guard(data).await;
        for reply in &replies {
            let text = String::from_utf8_lossy(reply);
            let (header, body) = text.split_once("\r\n\r\n").expect("a framed reply");
            assert_eq!(
                header,
                format!("Content-Length: {}", body.len()),
                "malformed reply {text:?}"
            );
            let body: serde_json::Value = serde_json::from_str(body).expect("a JSON reply");
            assert!(
                body["error"]["code"].is_i64(),
                "a reply that is not an error: {text:?}"
            );
        }
        // What passed the guard passes it again, unchanged and without complaint.
        let (again, complaints) = guard(&forwarded).await;
        assert!(
            complaints.is_empty(),
            "the guard rejects its own output: {:?}",
            String::from_utf8_lossy(&forwarded)
        );
        assert_eq!(again, forwarded);
        // The output side passes the same frames on.
        let (tx, mut rx) = mpsc::channel(16);
        let collect = async {
            let mut out = Vec::new();
            while let Some(message) = rx.recv().await {
                out.extend(message);
            }
            out
        };
        let (_, copied) = tokio::join!(forward_output(&forwarded[..], tx), collect);
        assert_eq!(copied, forwarded);
    });
});
