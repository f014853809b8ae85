//! TLS for PostgreSQL connections, with rustls (no system OpenSSL needed to build).
//!
//! `sslmode=require` (and `verify-ca`/`verify-full`) verifies the server's certificate and
//! host name against the `sslrootcert=` file when given, else the system's roots.
//! `sslmode=prefer` encrypts when the server offers TLS but, like libpq, checks no
//! certificate: it protects against eavesdropping only, which is what `prefer` promises.

use crate::store::url::{PgUrl, SslMode};
use anyhow::{Context, Result, bail};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The connector for `url`'s `sslmode`.
pub fn connector(url: &PgUrl) -> Result<MakeRustlsConnect> {
    let provider = Arc::new(provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("TLS setup")?;
    let config = match url.sslmode {
        SslMode::Require => builder
            .with_root_certificates(roots(url)?)
            .with_no_client_auth(),
        SslMode::Prefer | SslMode::Disable => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider)))
            .with_no_client_auth(),
    };
    Ok(MakeRustlsConnect::new(config))
}

/// The ring provider with P-256 offered first. A client sends its key share for one group;
/// PostgreSQL up to 17 accepts only P-256 (`ssl_ecdh_curve = prime256v1`), so a first
/// share for X25519 costs a HelloRetryRequest: one more round trip and a second key.
/// A server that prefers X25519 takes the P-256 share as well.
fn provider() -> rustls::crypto::CryptoProvider {
    use rustls::crypto::ring::kx_group;
    rustls::crypto::CryptoProvider {
        kx_groups: vec![kx_group::SECP256R1, kx_group::X25519, kx_group::SECP384R1],
        ..rustls::crypto::ring::default_provider()
    }
}

fn roots(url: &PgUrl) -> Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    match &url.sslrootcert {
        Some(path) => {
            for cert in CertificateDer::pem_file_iter(path)
                .with_context(|| format!("cannot read sslrootcert {}", path.display()))?
            {
                let cert =
                    cert.with_context(|| format!("bad certificate in {}", path.display()))?;
                roots
                    .add(cert)
                    .with_context(|| format!("bad certificate in {}", path.display()))?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(found.certs);
        }
    }
    if roots.is_empty() {
        bail!(
            "sslmode=require: no root certificate found (system store empty; give sslrootcert=FILE)"
        );
    }
    Ok(roots)
}

/// Accepts any certificate while still checking the handshake signatures: `sslmode=prefer`.
#[derive(Debug)]
struct Unverified(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
