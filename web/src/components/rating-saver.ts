import type { AnswerRating } from '../api/types';

/** An answer's rating; null: none. */
export type Rating = AnswerRating | null;

/** What pressing a thumb does: sets it, or clears it when it is the rating already. */
export function nextRating(current: Rating, pressed: AnswerRating): Rating {
  return current === pressed ? null : pressed;
}

export interface RatingSaverEvents {
  /** Saving `wanted` failed: the rating is back to `restored`, the last one the service stored. */
  failed(error: unknown, restored: Rating): void;
}

/**
 * Saves the ratings a person chooses, however fast they press: one request at a time, and once it
 * is answered, the latest choice if it differs from what is stored, so the service ends with the
 * person's last choice (requests racing each other could store an older one). A failure gives up
 * the choices still waiting and reports the rating last stored, for the page to show again.
 */
export class RatingSaver {
  private stored: Rating;
  private wanted: Rating;
  private saving = false;

  constructor(
    stored: Rating,
    private readonly save: (rating: Rating) => Promise<Rating>,
    private readonly events: RatingSaverEvents,
  ) {
    this.stored = stored;
    this.wanted = stored;
  }

  /** The person chose `rating`: it is saved now, or after the request in flight. */
  choose(rating: Rating): void {
    this.wanted = rating;
    if (!this.saving) void this.run();
  }

  private async run(): Promise<void> {
    this.saving = true;
    try {
      while (this.wanted !== this.stored) {
        try {
          this.stored = await this.save(this.wanted);
        } catch (error) {
          this.wanted = this.stored;
          this.events.failed(error, this.stored);
          return;
        }
      }
    } finally {
      this.saving = false;
    }
  }
}
