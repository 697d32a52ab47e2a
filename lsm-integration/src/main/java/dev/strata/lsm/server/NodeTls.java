package dev.strata.lsm.server;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The node's TLS: a Netty {@link SslContext} (the JDK's TLS) from PEM files, as
 * {@code --tls-cert}, {@code --tls-key} and {@code --tls-ca-cert} name them. Every connection
 * then starts with an {@link io.netty.handler.ssl.SslHandler}; with a CA certificate, clients
 * must present a certificate it signed (mutual TLS, as redis-server's {@code tls-auth-clients yes}).
 * Stateless; the returned context is immutable and shared by every connection.
 */
public final class NodeTls {
    private NodeTls() {
    }

    /**
     * The server context for {@code cert} (a PEM certificate chain) and {@code key} (its PEM
     * private key, PKCS#8: {@code BEGIN PRIVATE KEY}), requiring client certificates signed by
     * {@code clientCa} (PEM) when it is not null; null when all three are null (no TLS).
     *
     * @throws IllegalArgumentException naming the option when the files do not go together,
     *     cannot be read, or do not hold what they should
     */
    public static SslContext serverContext(Path cert, Path key, Path clientCa) {
        if (cert == null && key == null && clientCa == null) {
            return null;
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException(cert == null
                    ? (key != null ? "--tls-key needs --tls-cert (the certificate of that key)"
                            : "--tls-ca-cert needs --tls-cert and --tls-key (the node's own certificate and key)")
                    : "--tls-cert needs --tls-key (the certificate's private key, PEM)");
        }
        readable("--tls-cert", cert);
        readable("--tls-key", key);
        if (clientCa != null) {
            readable("--tls-ca-cert", clientCa);
        }
        SslContextBuilder b;
        try {
            b = SslContextBuilder.forServer(cert.toFile(), key.toFile());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tls-cert " + cert + " / --tls-key " + key
                    + ": not a PEM certificate and its PKCS#8 PEM private key (" + rootMessage(e) + ")", e);
        }
        b.sslProvider(SslProvider.JDK);
        if (clientCa != null) {
            b.trustManager(clientCa.toFile()).clientAuth(ClientAuth.REQUIRE);
        }
        try {
            return b.build();
        } catch (Exception e) {
            throw new IllegalArgumentException((clientCa != null ? "--tls-ca-cert " + clientCa + ", " : "")
                    + "--tls-cert " + cert + ", --tls-key " + key + ": " + rootMessage(e), e);
        }
    }

    private static void readable(String option, Path file) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(option + " " + file + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(option + " " + file + ": not a file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(option + " " + file + ": not readable");
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + t.getMessage();
    }
}
