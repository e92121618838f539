// The record layer's budgets (tls/record_budgets.hpp) on a simulated clock: the KeyUpdate window
// renews after window_seconds, and empty records are counted only in a row.
#include "tls/record_budgets.hpp"

#include <cstdint>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

// Takes KeyUpdates at `now` until refused (or 100): how many were taken.
int take_all(key_update_budget& budget, std::uint32_t now) {
  int taken = 0;
  while (taken < 100 && budget.take(now))
    ++taken;
  return taken;
}

TEST(KeyUpdateBudget, TheWindowRenewsAfterItsSeconds) {
  key_update_budget budget;
  const std::uint32_t start = 1000;
  EXPECT_EQ(take_all(budget, start), key_update_budget::per_window);
  // Still the same window one second before its end: refused, and the refusals are not counted.
  EXPECT_FALSE(budget.take(start + key_update_budget::window_seconds - 1));
  EXPECT_FALSE(budget.take(start + key_update_budget::window_seconds - 1));
  // At window_seconds a new window begins with all of the budget.
  EXPECT_EQ(take_all(budget, start + key_update_budget::window_seconds),
            key_update_budget::per_window);
  EXPECT_FALSE(budget.take(start + 2 * key_update_budget::window_seconds - 1));
}

// The window begins with the first KeyUpdate after the last window ended, not on a fixed grid:
// KeyUpdates spread over a window all count in it.
TEST(KeyUpdateBudget, TheWindowBeginsWithItsFirstKeyUpdate) {
  key_update_budget budget;
  const std::uint32_t start = 5;
  for (int i = 0; i < key_update_budget::per_window; ++i)
    ASSERT_TRUE(budget.take(start + static_cast<std::uint32_t>(i) * 3)) << i;  // 0 .. 45 s
  EXPECT_FALSE(budget.take(start + key_update_budget::window_seconds - 1));
  EXPECT_TRUE(budget.take(start + key_update_budget::window_seconds));
}

// The steady clock's seconds wrap at 2^32: a window across the wrap still ends on time.
TEST(KeyUpdateBudget, AWindowAcrossTheClocksWrapEndsOnTime) {
  key_update_budget budget;
  const std::uint32_t start = UINT32_MAX - 10;
  EXPECT_EQ(take_all(budget, start), key_update_budget::per_window);
  EXPECT_FALSE(budget.take(start + 20));  // wrapped to 9
  EXPECT_EQ(take_all(budget, start + key_update_budget::window_seconds),
            key_update_budget::per_window);
}

TEST(EmptyRecordBudget, TakesMostInARowAndStartsAgainAfterApplicationBytes) {
  empty_record_budget budget;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < empty_record_budget::most_in_a_row; ++i)
      ASSERT_TRUE(budget.take()) << i;
    budget.saw_application_bytes();
  }
  for (int i = 0; i < empty_record_budget::most_in_a_row; ++i)
    ASSERT_TRUE(budget.take()) << i;
  EXPECT_FALSE(budget.take());
  EXPECT_FALSE(budget.take());  // and stays refused
}

}  // namespace
}  // namespace ringcast
