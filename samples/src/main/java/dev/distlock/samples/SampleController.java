package dev.distlock.samples;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import dev.distlock.core.LockAcquisitionException;

/**
 * The sample's HTTP endpoints; see the README for curl lines.
 */
@RestController
public class SampleController {

	private final AccountService accounts;

	private final ReportJob reportJob;

	private final DocumentService documents;

	private final PriceService prices;

	private final CatalogService catalog;

	/**
	 * A controller over the sample services.
	 */
	public SampleController(AccountService accounts, ReportJob reportJob, DocumentService documents,
			PriceService prices, CatalogService catalog) {
		this.accounts = accounts;
		this.reportJob = reportJob;
		this.documents = documents;
		this.prices = prices;
		this.catalog = catalog;
	}

	/** Debits an account under its lock. */
	@PostMapping("/accounts/{id}/debit")
	public AccountService.Debit debit(@PathVariable String id, @RequestParam long amount) throws InterruptedException {
		return accounts.debit(id, amount);
	}

	/** An account's balance. */
	@GetMapping("/accounts/{id}")
	public Map<String, Object> balance(@PathVariable String id) {
		return Map.of("account", id, "balance", accounts.balance(id));
	}

	/** The scheduled job's runs on this instance. */
	@GetMapping("/jobs/report")
	public ReportJob.Status report() {
		return reportJob.status();
	}

	/** Writes a document under a LockTemplate lock, fenced by its token. */
	@PutMapping("/documents/{id}")
	public DocumentService.Document write(@PathVariable String id, @RequestBody String text) {
		return documents.write(id, text);
	}

	/** A stored document, or 404. */
	@GetMapping("/documents/{id}")
	public ResponseEntity<DocumentService.Document> document(@PathVariable String id) {
		return ResponseEntity.of(documents.read(id));
	}

	/** Replays a write with a given token, as a stalled former holder would. */
	@PostMapping("/documents/{id}/replay")
	public DocumentService.Document replay(@PathVariable String id, @RequestParam long token, @RequestBody String text) {
		return documents.writeFenced(id, text, token);
	}

	/** A price through the cache-stampede helper. */
	@GetMapping("/prices/{sku}")
	public PriceService.Price price(@PathVariable String sku) {
		return prices.price(sku);
	}

	/** Drops a cached price. */
	@DeleteMapping("/prices/{sku}")
	@ResponseStatus(HttpStatus.NO_CONTENT)
	public void evict(@PathVariable String sku) {
		prices.evict(sku);
	}

	/** Reads a catalog under a shared lock. */
	@GetMapping("/catalog/{id}")
	public CatalogService.Read read(@PathVariable String id) throws InterruptedException {
		return catalog.read(id);
	}

	/** Rebuilds a catalog under the exclusive lock. */
	@PostMapping("/catalog/{id}/rebuild")
	public CatalogService.Read rebuild(@PathVariable String id) throws InterruptedException {
		return catalog.rebuild(id);
	}

	/** A stale fencing token is a conflict. */
	@ExceptionHandler(DocumentService.StaleTokenException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	public Map<String, String> stale(DocumentService.StaleTokenException ex) {
		return Map.of("error", ex.getMessage());
	}

	/** A lock that stayed held is a conflict. */
	@ExceptionHandler(LockAcquisitionException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	public Map<String, String> busy(LockAcquisitionException ex) {
		return Map.of("error", ex.getMessage());
	}

}
