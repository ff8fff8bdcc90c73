package dev.distlock.autoconfigure.web;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own advice for lock errors wins over distlock's, which still answers what the application does
 * not handle.
 */
@SpringBootTest(classes = { SeatsApplication.class, UserExceptionHandlerTest.UserAdvice.class },
		properties = "spring.main.web-application-type=servlet")
@AutoConfigureMockMvc
class UserExceptionHandlerTest {

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private LockTemplate template;

	@Autowired
	private SeatsApplication.SwitchableStore store;

	@AfterEach
	void storeUp() {
		store.down = false;
	}

	@Test
	void applicationsAdviceAnswersContention() {
		try (LockHandle held = template.acquire("seat:1")) {
			assertThat(mvc.post().uri("/seats/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
				.hasBodyTextEqualTo("busy: seat:1");
		}
	}

	@Test
	void whatTheApplicationDoesNotHandleIsStillMapped() {
		store.down = true;
		assertThat(mvc.post().uri("/seats/2")).hasStatus(HttpStatus.SERVICE_UNAVAILABLE);
	}

	@RestControllerAdvice
	static class UserAdvice {

		@ExceptionHandler
		ResponseEntity<String> busy(LockAcquisitionException ex) {
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("busy: " + ex.key());
		}

	}

}
