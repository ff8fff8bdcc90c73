package dev.distlock.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample app: in-memory locks by default; profiles {@code redis} and {@code mongo} switch the store.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	/**
	 * Starts the app on port 8080.
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
