import { describe, expect, it } from 'vitest';
import { Channel, ChannelState } from '../../../host/src/plugin/sandbox/channel.ts';
import { HostAnswers } from '../../../host/src/plugin/sandbox/worker/host-answers.ts';

// A guest suspended on the host: its channel says hostRequest until the main thread answers.
function waitingGuest(answers: HostAnswers): { channel: Channel; resumed: () => boolean; done: Promise<void> } {
  const channel = Channel.create(64, 1024);
  channel.set(ChannelState.hostRequest);
  let resumed = false;
  const done = answers.until(channel).then(() => {
    resumed = true;
  });
  return { channel, resumed: () => resumed, done };
}

describe('HostAnswers', () => {
  it('does not wait when the channel no longer says hostRequest', async () => {
    const answers = new HostAnswers();
    const channel = Channel.create(64, 1024);
    channel.set(ChannelState.hostReply);
    await answers.until(channel);
    expect(answers.waiting).toBe(0);
  });

  it('resumes a guest whose answer is in before its own wake-up arrives, and only then resolves', async () => {
    const answers = new HostAnswers();
    const guest = waitingGuest(answers);
    expect(answers.waiting).toBe(1);
    // The answer is written without a notification: the wait's own task never comes, as if queued behind others.
    guest.channel.set(ChannelState.hostReply);
    await answers.resumeAnswered();
    expect(guest.resumed()).toBe(true);
    expect(answers.waiting).toBe(0);
  });

  it('leaves a guest without its answer waiting, until the answer comes', async () => {
    const answers = new HostAnswers();
    const guest = waitingGuest(answers);
    await answers.resumeAnswered();
    expect(guest.resumed()).toBe(false);
    expect(answers.waiting).toBe(1);
    guest.channel.publish(ChannelState.hostReply);
    await guest.done;
    expect(answers.waiting).toBe(0);
  });

  it('resumes only the answered ones of several, and counts an instance out of service as answered', async () => {
    const answers = new HostAnswers();
    const [a, b, c] = [waitingGuest(answers), waitingGuest(answers), waitingGuest(answers)];
    a.channel.set(ChannelState.hostReply);
    c.channel.set(ChannelState.dead);
    await answers.resumeAnswered();
    expect([a.resumed(), b.resumed(), c.resumed()]).toEqual([true, false, true]);
    expect(answers.waiting).toBe(1);
    b.channel.publish(ChannelState.hostReply);
    await b.done;
  });

  it('runs an answered guest ahead of a call start even when its notification is already queued', async () => {
    const answers = new HostAnswers();
    const order: string[] = [];
    const guest = waitingGuest(answers);
    void guest.done.then(() => order.push('guest'));
    guest.channel.publish(ChannelState.hostReply); // the wait's task is queued now
    await answers.resumeAnswered();
    order.push('call start');
    expect(order).toEqual(['guest', 'call start']);
  });
});
